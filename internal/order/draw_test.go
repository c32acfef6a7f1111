package order_test

import (
	"context"
	"testing"

	"github.com/seckill/seckill/internal/keyspace"
)

func TestOrderedAndPaidOrders(t *testing.T) {
	t.Parallel()
	orders, _, it, _ := setup(t, 10)
	ctx := context.Background()
	if _, err := orders.Persist(ctx, []keyspace.Entry{entry(it.ID, "A", "alice", 1, 1), entry(it.ID, "B", "bob", 1, 2)}); err != nil {
		t.Fatal(err)
	}
	if _, err := orders.Pay(ctx, "A", "alice"); err != nil {
		t.Fatal(err)
	}
	for user, want := range map[string]bool{"alice": true, "bob": true, "carol": false} {
		if got, err := orders.Ordered(ctx, it.ID, user); err != nil || got != want {
			t.Errorf("ordered %s: %v, %v; want %v", user, got, err, want)
		}
	}
	variant := it.Variants[0].ID
	if n, err := orders.PaidOrders(ctx, it.ID, variant); err != nil || n != 1 {
		t.Fatalf("paid orders: %d, %v; want 1", n, err)
	}
}
