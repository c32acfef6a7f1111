package order

import (
	"context"
	"errors"
	"fmt"

	"gorm.io/gorm"
)

// Store reads orders from MySQL and writes persisted batches.
type Store struct{ db *gorm.DB }

// NewStore returns a store over db (a connection pool or a transaction).
func NewStore(db *gorm.DB) *Store { return &Store{db: db} }

// Get returns the order with id, or ErrNotFound.
func (s *Store) Get(ctx context.Context, id string) (Order, error) {
	var r row
	err := s.db.WithContext(ctx).Take(&r, "id = ?", id).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return Order{}, fmt.Errorf("get order %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Order{}, fmt.Errorf("get order %s: %w", id, err)
	}
	return r.order(), nil
}

// ListByUser returns a shopper's orders, newest first.
func (s *Store) ListByUser(ctx context.Context, userID string) ([]Order, error) {
	return s.find(ctx, s.db.WithContext(ctx).Where("user_id = ?", userID).Order("created_at DESC, id DESC"))
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

// Counts summarises an item's orders in MySQL.
type Counts struct {
	Confirmed, Paid, Cancelled int
	ActiveQuantity             int // units held by confirmed and paid orders
}

// OwedQuantityUpTo sums the cancelled orders whose stock is back in MySQL
// but not yet in Redis, among those from stream entries up to (ms, seq): an
// order reserved later is in neither side of a Redis snapshot taken then.
func (s *Store) OwedQuantityUpTo(ctx context.Context, itemID int64, ms, seq uint64) (int, error) {
	var qty int
	err := s.db.WithContext(ctx).Model(&row{}).Select("COALESCE(SUM(quantity),0)").
		Where("item_id = ? AND status = ? AND redis_released = ? AND (stream_ms < ? OR (stream_ms = ? AND stream_seq <= ?))",
			itemID, StatusCancelled, false, ms, ms, seq).Scan(&qty).Error
	if err != nil {
		return 0, fmt.Errorf("sum owed releases of item %d: %w", itemID, err)
	}
	return qty, nil
}

// Count returns the item's order counts by status.
func (s *Store) Count(ctx context.Context, itemID int64) (Counts, error) {
	var rows []struct {
		Status string
		N, Qty int
	}
	err := s.db.WithContext(ctx).Model(&row{}).Select("status, COUNT(*) AS n, COALESCE(SUM(quantity),0) AS qty").
		Where("item_id = ?", itemID).Group("status").Scan(&rows).Error
	if err != nil {
		return Counts{}, fmt.Errorf("count orders of item %d: %w", itemID, err)
	}
	var c Counts
	for _, r := range rows {
		switch r.Status {
		case StatusConfirmed:
			c.Confirmed, c.ActiveQuantity = r.N, c.ActiveQuantity+r.Qty
		case StatusPaid:
			c.Paid, c.ActiveQuantity = r.N, c.ActiveQuantity+r.Qty
		case StatusCancelled:
			c.Cancelled = r.N
		}
	}
	return c, nil
}

// ActiveQuantityAfter sums the active orders of an item that came from stream
// entries newer than (ms, seq).
func (s *Store) ActiveQuantityAfter(ctx context.Context, itemID int64, ms, seq uint64) (int, error) {
	var qty int
	err := s.db.WithContext(ctx).Model(&row{}).Select("COALESCE(SUM(quantity),0)").
		Where("item_id = ? AND status <> ? AND (stream_ms > ? OR (stream_ms = ? AND stream_seq > ?))",
			itemID, StatusCancelled, ms, ms, seq).Scan(&qty).Error
	if err != nil {
		return 0, fmt.Errorf("sum orders of item %d after %d-%d: %w", itemID, ms, seq, err)
	}
	return qty, nil
}
