package database_test

import (
	"context"
	"testing"

	"github.com/seckill/seckill/internal/database"
	"github.com/seckill/seckill/internal/testenv"
)

// TestVariantsMigration takes a database holding a sale with orders, as the
// release before variants left it, up to variants and back down: the sale
// becomes one "Default" variant with its stock, its orders land on that
// variant, and going down keeps every order and the sale's stock.
func TestVariantsMigration(t *testing.T) {
	t.Parallel()
	db := testenv.MySQL(t)
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(database.MigrateTo(ctx, db.DSN, 4))
	must(db.Gorm.Exec(`INSERT INTO items (id, name, description, price_cents, stock_total, stock, per_user_limit, starts_at, ends_at)
		VALUES (7, 'Sneaker', '', 12900, 10, 8, 1, '2026-01-01', '2026-01-02')`).Error)
	must(db.Gorm.Exec(`INSERT INTO items (id, name, description, price_cents, stock_total, stock, per_user_limit, starts_at, ends_at)
		VALUES (8, 'Cap', '', 900, 5, 4, 1, '2026-01-01', '2026-01-02')`).Error)
	must(db.Gorm.Exec(`INSERT INTO orders (id, item_id, user_id, quantity, status, created_at) VALUES
		('01A', 7, 'ann', 1, 'confirmed', NOW(3)), ('01B', 7, 'bob', 1, 'paid', NOW(3)),
		('01C', 7, 'cy', 1, 'cancelled', NOW(3)), ('01Z', 8, 'ann', 1, 'confirmed', NOW(3))`).Error)

	must(database.MigrateTo(ctx, db.DSN, 5))
	var v struct {
		ID                int64
		Label             string
		StockTotal, Stock int
	}
	must(db.Gorm.Raw("SELECT id, label, stock_total, stock FROM variants WHERE item_id = 7").Scan(&v).Error)
	if v.Label != "Default" || v.StockTotal != 10 || v.Stock != 8 {
		t.Fatalf("variant after up = %+v, want Default 10/8", v)
	}
	var onVariant int
	must(db.Gorm.Raw("SELECT COUNT(*) FROM orders WHERE variant_id = ?", v.ID).Scan(&onVariant).Error)
	if onVariant != 3 {
		t.Fatalf("%d orders on the default variant, want 3", onVariant)
	}
	var capOrders int // the other sale's order lands on that sale's own variant
	must(db.Gorm.Raw(`SELECT COUNT(*) FROM orders o JOIN variants v ON v.id = o.variant_id
		WHERE o.item_id = 8 AND v.item_id = 8 AND v.stock = 4`).Scan(&capOrders).Error)
	if capOrders != 1 {
		t.Fatalf("%d orders of sale 8 on its own variant, want 1", capOrders)
	}
	// The one-active-order rule still holds per sale.
	if err := db.Gorm.Exec(`INSERT INTO orders (id, item_id, variant_id, user_id, quantity, created_at)
		VALUES ('01D', 7, ?, 'ann', 1, NOW(3))`, v.ID).Error; err == nil {
		t.Fatal("a second active order of one shopper in one sale was accepted")
	}
	must(db.Gorm.Exec(`INSERT INTO orders (id, item_id, variant_id, user_id, quantity, created_at)
		VALUES ('01E', 7, ?, 'cy', 1, NOW(3))`, v.ID).Error)

	must(database.MigrateTo(ctx, db.DSN, 4))
	var orders, stock int
	must(db.Gorm.Raw("SELECT COUNT(*) FROM orders WHERE item_id = 7").Scan(&orders).Error) // 3 before, 1 since
	must(db.Gorm.Raw("SELECT stock FROM items WHERE id = 7").Scan(&stock).Error)
	if orders != 4 || stock != 8 {
		t.Fatalf("after down: %d orders, stock %d; want 4 orders, stock 8", orders, stock)
	}
	must(database.Migrate(ctx, db.DSN)) // and up again, as a redeploy would
}
