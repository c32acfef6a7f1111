package persist

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"
	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/webhook"
)

// EventEndpoint is the one endpoint the drain with events announces to.
// Nothing delivers in the bench (no dispatcher runs), so nothing need
// listen: the measure is the writing, in the persisters' transactions.
const EventEndpoint = "http://127.0.0.1:9/bench-hooks"

// DrainWithEvents is Drain with the outbox on, as a server with one
// SECKILL_WEBHOOK_URL runs: every batch also writes an order.confirmed row
// per order, and the batch that takes the last unit a sale.sold_out row,
// in its transaction. It fails unless exactly those rows were written.
func DrainWithEvents(ctx context.Context, rdb *redis.Client, dsn, prefix string, orders []Order, mysqlPID int) (Run, error) {
	return drain(ctx, rdb, dsn, prefix, orders, mysqlPID, webhook.NewWriter([]string{EventEndpoint}, time.Now, 0))
}

// typeCount is the outbox rows of one event type and the subjects they
// are about.
type typeCount struct {
	Type     string
	Rows     int
	Subjects int
}

// checkEvents confirms the drain of n orders (into a fresh database)
// wrote one order.confirmed row per order, each about an order of its own,
// one sale.sold_out row and nothing else, and returns the rows written.
func checkEvents(ctx context.Context, db *gorm.DB, n int) (int, error) {
	var got []typeCount
	err := db.WithContext(ctx).Raw("SELECT type, COUNT(*) AS `rows`, COUNT(DISTINCT subject) AS subjects FROM outbox " +
		"GROUP BY type ORDER BY type").Scan(&got).Error
	if err != nil {
		return 0, fmt.Errorf("count outbox rows: %w", err)
	}
	want := []typeCount{{webhook.OrderConfirmed, n, n}, {webhook.SaleSoldOut, 1, 1}}
	if !slices.Equal(got, want) {
		return 0, fmt.Errorf("after the drain the outbox holds %v (type, rows, subjects), want %v", got, want)
	}
	return n + 1, nil
}
