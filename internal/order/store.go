package order

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/webhook"
)

// Store reads orders from MySQL and writes persisted batches.
type Store struct {
	db  *gorm.DB
	ins *inserts
	now func() time.Time // dates payments and cancellations
	out *webhook.Writer  // events of the orders' changes; nil: none
}

// NewStore returns a store over db (a connection pool or a transaction).
func NewStore(db *gorm.DB) *Store { return &Store{db: db, ins: newInserts(db), now: time.Now} }

// UseClock makes the store date payments and cancellations by now, the
// clock that decides sale windows.
func (s *Store) UseClock(now func() time.Time) { s.now = now }

// labelled reads orders with their variant's label and, for an order
// persisted before prices were kept, the price it costs: its variant's now
// (what amount charges it).
func (s *Store) labelled(ctx context.Context) *gorm.DB {
	return s.db.WithContext(ctx).Table("orders").
		Select("orders.*, variants.label AS variant_label, COALESCE(variants.price_cents, items.price_cents) AS price_now").
		Joins("LEFT JOIN variants ON variants.id = orders.variant_id").
		Joins("LEFT JOIN items ON items.id = orders.item_id")
}

// Get returns the order with id and its variant's label, or ErrNotFound.
func (s *Store) Get(ctx context.Context, id string) (Order, error) {
	var r row
	err := s.labelled(ctx).Take(&r, "orders.id = ?", id).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return Order{}, fmt.Errorf("get order %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Order{}, fmt.Errorf("get order %s: %w", id, err)
	}
	return r.order(), nil
}

// ListByUser returns a shopper's orders with their variants' labels, newest
// first.
func (s *Store) ListByUser(ctx context.Context, userID string) ([]Order, error) {
	return s.find(ctx, s.labelled(ctx).Where("orders.user_id = ?", userID).
		Order("orders.created_at DESC, orders.id DESC"))
}

// Active returns the item's orders that are not cancelled.
func (s *Store) Active(ctx context.Context, itemID int64) ([]Order, error) {
	return s.find(ctx, s.db.WithContext(ctx).Where("item_id = ? AND status <> ?", itemID, StatusCancelled))
}

func (s *Store) find(ctx context.Context, q *gorm.DB) ([]Order, error) {
	var rows []row
	if err := q.Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list orders: %w", err)
	}
	out := make([]Order, len(rows))
	for i, r := range rows {
		out[i] = r.order()
	}
	return out, nil
}

// Existing returns which of ids have a row, whatever their status.
func (s *Store) Existing(ctx context.Context, ids []string) (map[string]bool, error) {
	found := make(map[string]bool, len(ids))
	for start := 0; start < len(ids); start += 1000 {
		chunk := ids[start:min(start+1000, len(ids))]
		var got []string
		if err := s.db.WithContext(ctx).Model(&row{}).Where("id IN ?", chunk).Pluck("id", &got).Error; err != nil {
			return nil, fmt.Errorf("find existing orders: %w", err)
		}
		for _, id := range got {
			found[id] = true
		}
	}
	return found, nil
}

// Counts summarises a sale's orders in MySQL.
type Counts struct {
	Confirmed, Paid, Cancelled int
	ActiveQuantity             int // units held by confirmed and paid orders
}

func (c *Counts) add(status string, n, qty int) {
	switch status {
	case StatusConfirmed:
		c.Confirmed, c.ActiveQuantity = c.Confirmed+n, c.ActiveQuantity+qty
	case StatusPaid:
		c.Paid, c.ActiveQuantity = c.Paid+n, c.ActiveQuantity+qty
	case StatusCancelled:
		c.Cancelled += n
	}
}

// streamUpTo selects orders from stream entries up to (ms, seq).
const streamUpTo = "(stream_ms < ? OR (stream_ms = ? AND stream_seq <= ?))"

// OwedQuantityUpTo sums, per variant, the cancelled orders whose stock is
// back in MySQL but not yet in Redis, among those from stream entries up to
// (ms, seq): an order reserved later is in neither side of a Redis snapshot
// taken then.
func (s *Store) OwedQuantityUpTo(ctx context.Context, itemID int64, ms, seq uint64) (map[int64]int, error) {
	q := s.db.WithContext(ctx).Model(&row{}).Where("item_id = ? AND status = ? AND redis_released = ? AND "+streamUpTo,
		itemID, StatusCancelled, false, ms, ms, seq)
	out, err := sumByVariant(q)
	if err != nil {
		return nil, fmt.Errorf("sum owed releases of item %d: %w", itemID, err)
	}
	return out, nil
}

// ActiveQuantityAfter sums, per variant, the active orders of a sale that
// came from stream entries newer than (ms, seq).
func (s *Store) ActiveQuantityAfter(ctx context.Context, itemID int64, ms, seq uint64) (map[int64]int, error) {
	q := s.db.WithContext(ctx).Model(&row{}).Where("item_id = ? AND status <> ? AND NOT "+streamUpTo,
		itemID, StatusCancelled, ms, ms, seq)
	out, err := sumByVariant(q)
	if err != nil {
		return nil, fmt.Errorf("sum orders of item %d after %d-%d: %w", itemID, ms, seq, err)
	}
	return out, nil
}

func sumByVariant(q *gorm.DB) (map[int64]int, error) {
	var rows []struct {
		VariantID int64
		Qty       int
	}
	if err := q.Select("variant_id, SUM(quantity) AS qty").Group("variant_id").Scan(&rows).Error; err != nil {
		return nil, err
	}
	out := make(map[int64]int, len(rows))
	for _, r := range rows {
		out[r.VariantID] = r.Qty
	}
	return out, nil
}

// Count returns a sale's order counts by status, in all and per variant.
func (s *Store) Count(ctx context.Context, itemID int64) (Counts, map[int64]Counts, error) {
	var rows []struct {
		VariantID int64
		Status    string
		N, Qty    int
	}
	err := s.db.WithContext(ctx).Model(&row{}).
		Select("variant_id, status, COUNT(*) AS n, COALESCE(SUM(quantity),0) AS qty").
		Where("item_id = ?", itemID).Group("variant_id, status").Scan(&rows).Error
	if err != nil {
		return Counts{}, nil, fmt.Errorf("count orders of item %d: %w", itemID, err)
	}
	var all Counts
	per := make(map[int64]Counts)
	for _, r := range rows {
		all.add(r.Status, r.N, r.Qty)
		c := per[r.VariantID]
		c.add(r.Status, r.N, r.Qty)
		per[r.VariantID] = c
	}
	return all, per, nil
}
