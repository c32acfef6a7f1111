package stocksync_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/stock"
)

// TestDriftBetweenVariants: Redis moved two units from one size to another,
// so the sale's total still agrees with MySQL. Stats must see it per size,
// and a repair must put each size back, or shoppers would buy a size MySQL
// has none of.
func TestDriftBetweenVariants(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	ctx := context.Background()
	it, err := s.items.Create(ctx, catalog.Item{Name: "drop", PriceCents: 100, PerUserLimit: 1, StartsAt: t0,
		EndsAt: t0.Add(time.Hour), Variants: []catalog.Variant{{Label: "S", StockTotal: 4}, {Label: "M", StockTotal: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.syncer.Warm(ctx, it.ID); err != nil {
		t.Fatal(err)
	}
	small, medium := it.Variants[0].ID, it.Variants[1].ID
	if _, err := s.stock.Reserve(ctx, stock.Request{ItemID: it.ID, VariantID: medium, UserID: "ann", Quantity: 1,
		OrderID: newID(), Now: t0.Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	vstock := s.keys.Item(it.ID).VariantStock()
	s.rdb.HIncrBy(ctx, vstock, strconv.FormatInt(small, 10), -2)
	s.rdb.HIncrBy(ctx, vstock, strconv.FormatInt(medium, 10), 2)

	st, err := s.syncer.Stats(ctx, it.ID)
	if err != nil {
		t.Fatal(err)
	}
	if st.Consistent || len(st.Problems) != 0 || st.Variants[0].Consistent || st.Variants[1].Consistent {
		t.Fatalf("stats = %+v: want the sale's sums agreeing and both sizes drifted", st)
	}
	rep, err := s.syncer.Reconcile(ctx)
	if err != nil || len(rep.Items) != 1 || !rep.Items[0].Repaired {
		t.Fatalf("reconcile = %+v, %v", rep, err)
	}
	levels, err := s.stock.Levels(ctx, []int64{it.ID})
	if err != nil {
		t.Fatal(err)
	}
	if l := levels[it.ID]; l.Variants[small] != 4 || l.Variants[medium] != 3 || l.Total != 7 {
		t.Fatalf("redis after the repair = %+v, want S 4, M 3, total 7", l)
	}
	s.workers(t, 1, time.Second)
	s.drained(t, it.ID)
	s.invariants(t, it)
}
