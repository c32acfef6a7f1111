package stocksync_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/order"
	"github.com/seckill/seckill/internal/stock"
	"github.com/seckill/seckill/internal/sync/stocksync"
	"github.com/seckill/seckill/internal/testenv"
)

// TestConcurrentStockChangesStayInStep: admins change stock_total at the
// same time as each other, as warms, and as shoppers buy. Every change lands
// in both stores in the same order, so they agree at the end.
func TestConcurrentStockChangesStayInStep(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	it := s.sale(t, 100, 1)
	s.workers(t, 2, time.Second)
	ctx := context.Background()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 10 {
				total := 100 + 10*((g+i)%5)
				_, err := s.sales.Update(ctx, it.ID, catalog.Patch{StockTotal: &total})
				if err != nil && !errors.Is(err, catalog.ErrStockConflict) && !errors.Is(err, stock.ErrStockConflict) {
					t.Errorf("update: %v", err)
				}
			}
		})
	}
	wg.Go(func() {
		for range 10 {
			if err := s.syncer.Warm(ctx, it.ID); err != nil && !errors.Is(err, stock.ErrBusy) {
				t.Errorf("warm: %v", err)
			}
		}
	})
	wg.Go(func() {
		for i := range 60 {
			if _, err := s.buy(it.ID, "c"+strconv.Itoa(i), 1); err != nil && !errors.Is(err, stock.ErrSoldOut) {
				t.Errorf("buy: %v", err)
			}
		}
	})
	wg.Wait()
	s.drained(t, it.ID)
	cur, _ := s.items.Get(ctx, it.ID)
	s.invariants(t, cur)
}

// TestRepairDuringStorm: MySQL holds less stock than Redis believes while a
// storm goes on. The first rejected orders trigger a repair that corrects
// Redis mid-sale, so far fewer orders are lost than the drift, and the stores
// agree at the end.
func TestRepairDuringStorm(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	it := s.sale(t, 200, 1)
	ctx := context.Background()
	// An operator cuts the sale to 50 units in MySQL, behind Redis's back.
	s.editMySQL(t, it.ID, "stock = 50, stock_total = 50")
	s.workers(t, 2, time.Second)
	stream := s.keys.Item(it.ID).Stream()
	for i := range 60 {
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				_, err := s.buy(it.ID, "r"+strconv.Itoa(g)+"-"+strconv.Itoa(i), 1)
				if err != nil && !errors.Is(err, stock.ErrSoldOut) {
					t.Errorf("buy: %v", err)
				}
			})
		}
		wg.Wait()
		// Purchases keep at most a wave ahead of the workers, so
		// rejections (and their repairs) land mid-storm, not after the
		// last purchase.
		testenv.WaitFor(t, 20*time.Second, func() bool { return s.rdb.XLen(ctx, stream).Val() <= 4 },
			"the workers fell behind the storm")
	}
	s.drained(t, it.ID)
	dead := s.rdb.XLen(ctx, s.keys.Item(it.ID).DeadLetters()).Val()
	t.Logf("%d orders rejected after 150 units vanished from MySQL", dead)
	if dead >= 150 {
		t.Fatalf("%d orders rejected: the repair did not stop Redis selling vanished stock", dead)
	}
	// The last repair runs after its rejected entries are acknowledged, so
	// it may land just after the stream looks drained.
	testenv.WaitFor(t, 5*time.Second, func() bool {
		st, err := s.syncer.Stats(ctx, it.ID)
		return err == nil && st.Consistent
	}, "stores still disagree after the storm was drained")
	cur, _ := s.items.Get(ctx, it.ID)
	if active := s.invariants(t, cur); len(active) != 50 {
		t.Fatalf("%d orders persisted, want the 50 MySQL had", len(active))
	}
}

// TestUpdateDuringCorrectionWaits: an admin's stock change arriving while a
// drift correction measures waits for it, instead of being taken for drift.
func TestUpdateDuringCorrectionWaits(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	it := s.sale(t, 10, 1)
	ctx := context.Background()
	done := make(chan error, 1)
	stocksync.SetBetweenReads(s.syncer, func() {
		stocksync.SetBetweenReads(s.syncer, nil)
		go func() {
			total := 20
			_, err := s.sales.Update(ctx, it.ID, catalog.Patch{StockTotal: &total})
			done <- err
		}()
		// Sleep: nothing shows from outside that a goroutine has reached its
		// wait for a lock; this gives the update the time to get there.
		time.Sleep(100 * time.Millisecond)
		select {
		case err := <-done:
			t.Errorf("the update finished (%v) while the correction held the sale", err)
			done <- err
		default:
		}
	})
	if err := s.syncer.Repair(ctx, it.ID, nil); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if st, err := s.syncer.Stats(ctx, it.ID); err != nil || !st.Consistent || st.StockTotal != 20 {
		t.Fatalf("stats = %+v, %v: want consistent with stock_total 20", st, err)
	}
}

// TestExclusiveNeverOverlaps: many holders of one sale's sync lock, from
// goroutines with a holder each (as separate servers would be), run one at
// a time.
func TestExclusiveNeverOverlaps(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	it := s.sale(t, 1, 1)
	var inside, most atomic.Int64
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			err := s.syncer.Exclusive(context.Background(), it.ID, func(ctx context.Context) error {
				n := inside.Add(1)
				defer inside.Add(-1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				return s.rdb.Ping(ctx).Err() // hold the lock for a round trip
			})
			if err != nil {
				t.Errorf("exclusive: %v", err)
			}
		})
	}
	wg.Wait()
	if most.Load() != 1 {
		t.Fatalf("%d holders of the sale's sync lock at once, want 1", most.Load())
	}
}

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
	s.settle(t, it)
}
