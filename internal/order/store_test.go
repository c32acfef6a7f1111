package order_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/order"
	"github.com/seckill/seckill/internal/testenv"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func setup(tb testing.TB, stock int) (*order.Store, *catalog.Store, catalog.Item, *gorm.DB) {
	tb.Helper()
	db := testenv.MySQL(tb)
	items := catalog.NewStore(db.Gorm)
	it, err := items.Create(context.Background(), catalog.Item{Name: "x", StockTotal: stock, PerUserLimit: 3,
		StartsAt: t0, EndsAt: t0.Add(time.Hour)})
	if err != nil {
		tb.Fatal(err)
	}
	return order.NewStore(db.Gorm), items, it, db.Gorm
}

func entry(itemID int64, id, user string, qty, seq int) keyspace.Entry {
	return keyspace.Entry{StreamID: "1700000000000-" + string(rune('0'+seq)), OrderID: id, ItemID: itemID,
		UserID: user, Quantity: qty, CreatedAt: t0}
}

func TestPersistIsIdempotent(t *testing.T) {
	t.Parallel()
	orders, items, it, _ := setup(t, 10)
	ctx := context.Background()
	batch := []keyspace.Entry{entry(it.ID, "A", "alice", 2, 1), entry(it.ID, "B", "bob", 3, 2)}
	res, err := orders.Persist(ctx, batch)
	if err != nil || len(res.Inserted) != 2 {
		t.Fatalf("first persist = %+v, %v", res, err)
	}
	res, err = orders.Persist(ctx, append(batch, entry(it.ID, "C", "carol", 1, 3)))
	if err != nil || len(res.Duplicate) != 2 || len(res.Inserted) != 1 || len(res.Rejected) != 0 {
		t.Fatalf("redelivery = %+v, %v; want 2 duplicates, 1 inserted", res, err)
	}
	got, _ := items.Get(ctx, it.ID)
	if got.Stock != 4 {
		t.Fatalf("stock = %d after 6 units, want 4", got.Stock)
	}
	o, err := orders.Get(ctx, "A")
	if err != nil || o.Status != order.StatusConfirmed || o.Quantity != 2 || o.UserID != "alice" {
		t.Fatalf("order A = %+v, %v", o, err)
	}
}

func TestPersistRejectsWhatMySQLCannotHold(t *testing.T) {
	t.Parallel()
	orders, items, it, _ := setup(t, 3)
	ctx := context.Background()
	if _, err := orders.Persist(ctx, []keyspace.Entry{entry(it.ID, "A", "alice", 1, 1)}); err != nil {
		t.Fatal(err)
	}
	res, err := orders.Persist(ctx, []keyspace.Entry{
		entry(it.ID, "B", "alice", 1, 2),  // alice holds A already
		entry(it.ID, "C", "bob", 2, 3),    // fits: 2 of the 2 left
		entry(it.ID, "D", "carol", 1, 4),  // nothing left in MySQL
		entry(it.ID+1, "E", "dave", 1, 5), // no such item
		entry(it.ID, "F", "erin", 1, 5),   // same batch: still nothing left
	})
	if err != nil {
		t.Fatal(err)
	}
	rejected := map[string]bool{}
	for _, r := range res.Rejected {
		rejected[r.Entry.OrderID] = true
	}
	if len(res.Inserted) != 1 || res.Inserted[0].OrderID != "C" || len(rejected) != 4 || !rejected["B"] || !rejected["D"] || !rejected["E"] || !rejected["F"] {
		t.Fatalf("result = %+v", res)
	}
	if got, _ := items.Get(ctx, it.ID); got.Stock != 0 {
		t.Fatalf("stock = %d, want 0", got.Stock)
	}
}

// TestDatabaseEnforcesOneActiveOrder bypasses the store: even a buggy writer
// cannot give one shopper two active orders for an item, but may once the
// first is cancelled.
func TestDatabaseEnforcesOneActiveOrder(t *testing.T) {
	t.Parallel()
	_, _, it, db := setup(t, 10)
	insert := func(id, status string) error {
		return db.Exec("INSERT INTO orders (id, item_id, variant_id, user_id, quantity, status, created_at) VALUES (?, ?, ?, 'alice', 1, ?, ?)",
			id, it.ID, it.Variants[0].ID, status, t0).Error
	}
	if err := insert("A", "confirmed"); err != nil {
		t.Fatal(err)
	}
	if err := insert("B", "paid"); !errors.Is(err, gorm.ErrDuplicatedKey) {
		t.Fatalf("second active order: err = %v, want ErrDuplicatedKey", err)
	}
	if err := db.Exec("UPDATE orders SET status = 'cancelled' WHERE id = 'A'").Error; err != nil {
		t.Fatal(err)
	}
	if err := insert("C", "confirmed"); err != nil {
		t.Fatalf("new order after cancelling: %v", err)
	}
	if err := db.Exec("UPDATE items SET stock = -1 WHERE id = ?", it.ID).Error; err == nil {
		t.Fatal("negative stock accepted by MySQL")
	}
}

// TestPersistKeepsTheReservedPrice: a row is stored at the unit price its
// stream entry carries, on the fast path and on the careful one, whatever
// MySQL's price is by then; an entry queued without one (by a server from
// before prices travelled with the reservation) is priced as MySQL has it.
func TestPersistKeepsTheReservedPrice(t *testing.T) {
	t.Parallel()
	s, ctx := newShop(t), context.Background()
	if err := s.db.Exec("UPDATE items SET price_cents = 4999").Error; err != nil {
		t.Fatal(err)
	}
	at := func(e keyspace.Entry, stream string, unit int64) keyspace.Entry {
		e.StreamID = "1700000000000-" + stream
		if unit >= 0 {
			e.UnitPriceCents = &unit
		}
		return e
	}
	fast := []keyspace.Entry{at(s.order("A1", "ann", "P"), "1", 1999), at(s.order("B1", "bob", "P"), "2", -1)}
	// A redelivery of A1 sends the batch down the careful path.
	careful := []keyspace.Entry{fast[0], at(s.order("C1", "cy", "S"), "3", 2999), at(s.order("D1", "dee", "M"), "4", -1)}
	for _, batch := range [][]keyspace.Entry{fast, careful} {
		if _, err := s.orders.Persist(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}
	for id, want := range map[string]int64{"A1": 1999, "B1": 4999, "C1": 2999, "D1": 4999} {
		o, err := s.orders.Get(ctx, id)
		if err != nil || o.UnitPriceCents == nil || *o.UnitPriceCents != want {
			t.Errorf("order %s: %v; want %d a unit, got %v", id, err, want, o.View().UnitPrice)
		}
	}
}

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
