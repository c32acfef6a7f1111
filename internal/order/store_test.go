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
