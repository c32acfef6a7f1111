package stocksync_test

import (
	"context"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/order"
)

// TestCancelInterruptedBetweenStores: a cancel commits in MySQL and the
// process dies before the Redis step. The stores do not count that as drift
// (the stock is owed to Redis); a repair settles the owed step itself, and
// the sweeper's later runs give nothing back a second time.
func TestCancelInterruptedBetweenStores(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	it := s.sale(t, 5, 1)
	ctx := context.Background()
	res, err := s.buy(it.ID, "alice", 1)
	if err != nil {
		t.Fatal(err)
	}
	stop := s.workers(t, 1, time.Second)
	s.drained(t, it.ID)
	stop()

	// The MySQL step alone, as a crash right after it would leave things.
	if _, err := s.orders.CancelInMySQL(ctx, res.OrderID, "alice", order.ReasonShopper); err != nil {
		t.Fatal(err)
	}
	k := s.keys.Item(it.ID)
	if got := s.rdb.Get(ctx, k.Stock()).Val(); got != "4" {
		t.Fatalf("redis stock %s before the Redis step, want 4", got)
	}
	st, err := s.syncer.Stats(ctx, it.ID)
	if err != nil || !st.Consistent {
		t.Fatalf("stats with the Redis step owed = %+v, %v: want consistent", st, err)
	}
	if err := s.syncer.Repair(ctx, it.ID, nil); err != nil {
		t.Fatal(err)
	}
	if got := s.rdb.Get(ctx, k.Stock()).Val(); got != "5" {
		t.Fatalf("redis stock %s after a repair settled the owed release, want 5", got)
	}
	for range 2 { // the sweeper's runs must change nothing more
		if _, err := s.syncer.FinishReleases(ctx, 100); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.rdb.Get(ctx, k.Stock()).Val(); got != "5" {
		t.Fatalf("redis stock %s after finishing the release, want 5", got)
	}
	if _, err := s.buy(it.ID, "alice", 1); err != nil {
		t.Fatalf("alice buying again after her cancel: %v", err)
	}
	s.workers(t, 1, time.Second)
	s.drained(t, it.ID)
	s.invariants(t, it)
}
