package order_test

import (
	"context"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/order"
	"github.com/seckill/seckill/internal/testenv"
)

// TestPersistTakesEachVariantsStock: a batch mixing sizes takes each unit
// from its own size and from the sale; a size cannot lend stock to another,
// a variant of another sale is refused, and one shopper holds one order in
// the whole sale whatever the size.
func TestPersistTakesEachVariantsStock(t *testing.T) {
	t.Parallel()
	db := testenv.MySQL(t)
	items, orders, ctx := catalog.NewStore(db.Gorm), order.NewStore(db.Gorm), context.Background()
	drop, err := items.Create(ctx, catalog.Item{Name: "drop", PerUserLimit: 2, StartsAt: t0, EndsAt: t0.Add(time.Hour),
		Variants: []catalog.Variant{{Label: "S", StockTotal: 1}, {Label: "M", StockTotal: 3}}})
	if err != nil {
		t.Fatal(err)
	}
	other, err := items.Create(ctx, catalog.Item{Name: "other", StockTotal: 5, PerUserLimit: 1, StartsAt: t0, EndsAt: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	s, m := drop.Variants[0].ID, drop.Variants[1].ID
	at := func(e keyspace.Entry, variant int64) keyspace.Entry { e.VariantID = variant; return e }
	res, err := orders.Persist(ctx, []keyspace.Entry{
		at(entry(drop.ID, "A", "ann", 1, 1), s),
		at(entry(drop.ID, "B", "bob", 1, 2), s),                    // S is gone, though M has stock
		at(entry(drop.ID, "C", "cy", 2, 3), m),                     // fits M
		at(entry(drop.ID, "D", "ann", 1, 4), m),                    // ann holds A in this sale
		at(entry(drop.ID, "E", "dee", 1, 5), other.Variants[0].ID), // another sale's variant
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Inserted) != 2 || res.Inserted[0].OrderID != "A" || res.Inserted[1].OrderID != "C" || len(res.Rejected) != 3 {
		t.Fatalf("result = %+v, want A and C in, B, D and E rejected", res)
	}
	got, _ := items.Get(ctx, drop.ID)
	if got.Stock != 1 || got.Variants[0].Stock != 0 || got.Variants[1].Stock != 1 {
		t.Fatalf("stock after the batch: sale %d, S %d, M %d; want 1, 0, 1", got.Stock, got.Variants[0].Stock, got.Variants[1].Stock)
	}
	o, err := orders.Get(ctx, "C")
	if err != nil || o.VariantID != m || o.VariantLabel != "M" {
		t.Fatalf("order C = %+v, %v; want variant M", o, err)
	}
	if _, err := orders.CancelInMySQL(ctx, "C", "cy", order.ReasonShopper); err != nil {
		t.Fatal(err)
	}
	got, _ = items.Get(ctx, drop.ID)
	if got.Stock != 3 || got.Variants[1].Stock != 3 {
		t.Fatalf("after cancelling C: sale %d, M %d; want 3 and 3", got.Stock, got.Variants[1].Stock)
	}
}
