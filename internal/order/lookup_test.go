package order_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/order"
	"github.com/seckill/seckill/internal/stock"
	"github.com/seckill/seckill/internal/testenv"
)

// TestLookupFindsOrdersWhereTheyAre: a shopper's order is found in MySQL
// once persisted and in Redis while still pending there, named after its
// variant and priced at the price the script took it at; the list shows an
// order in both stores once, newest first; another shopper's order is
// order.ErrNotFound.
func TestLookupFindsOrdersWhereTheyAre(t *testing.T) {
	t.Parallel()
	orders, items, persisted, _ := setup(t, 10)
	ctx := context.Background()
	if _, err := orders.Persist(ctx, []keyspace.Entry{entry(persisted.ID, "A", "alice", 2, 1)}); err != nil {
		t.Fatal(err)
	}
	queued, err := items.Create(ctx, catalog.Item{Name: "y", StockTotal: 5, PerUserLimit: 1, StartsAt: t0, EndsAt: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	rdb, prefix := testenv.Redis(t)
	st := stock.NewStore(rdb, keyspace.New(prefix))
	price := int64(700)
	buyers := map[int64]keyspace.Buyer{
		persisted.ID: {OrderID: "A", Quantity: 2, CreatedAt: t0, VariantID: persisted.Variants[0].ID},
		queued.ID:    {OrderID: "P", Quantity: 1, CreatedAt: t0.Add(time.Minute), VariantID: queued.Variants[0].ID, UnitPriceCents: &price},
	}
	for id, b := range buyers {
		load := func(context.Context, []keyspace.Entry) (stock.State, error) {
			return stock.State{Variants: map[int64]int64{b.VariantID: 3}, Buyers: map[string]keyspace.Buyer{"alice": b}}, nil
		}
		if err := st.Warm(ctx, id, load); err != nil {
			t.Fatal(err)
		}
	}
	l := order.NewLookup(orders, st, items)

	p, err := l.Find(ctx, "alice", "P")
	if err != nil || p.Status != order.StatusPending || p.VariantLabel != catalog.DefaultLabel || p.Amount == nil || *p.Amount != 700 {
		t.Fatalf("pending order: %+v, %v; want pending, named %q, 700 cents", p, err, catalog.DefaultLabel)
	}
	if a, err := l.Find(ctx, "alice", "A"); err != nil || a.Status != order.StatusConfirmed {
		t.Fatalf("persisted order: %+v, %v; want confirmed", a, err)
	}
	for _, id := range []string{"A", "P", "nope"} {
		if _, err := l.Find(ctx, "bob", id); !errors.Is(err, order.ErrNotFound) {
			t.Errorf("bob looking up %s: %v, want order.ErrNotFound", id, err)
		}
	}
	list, err := l.List(ctx, "alice")
	if err != nil || len(list) != 2 || list[0].OrderID != "P" || list[1].OrderID != "A" || list[1].Status != order.StatusConfirmed {
		t.Fatalf("alice's orders: %+v, %v; want P (pending) then A (confirmed), each once", list, err)
	}
	if held, err := l.Pending(ctx, "alice", "P"); err != nil || !held {
		t.Fatalf("Pending(P) = %v, %v; want true", held, err)
	}
}

// TestOrderedAndPaidOrders: the draw asks whether a shopper ever ordered
// from a sale (paid or not) and how many orders of a variant are paid.
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
