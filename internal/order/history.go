package order

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// EachPage calls fn with each of up to n of the sale's orders whose ids
// come after after ("" from the start), by id, with their variants' labels,
// and returns how many it read. Keyset pages, scanned row by row into one
// reused Order: reading a sale of any size costs the same per row and holds
// one row at a time. fn's error stops the scan and is returned.
func (s *Store) EachPage(ctx context.Context, itemID int64, after string, n int, fn func(*Order) error) (int, error) {
	rows, err := s.db.WithContext(ctx).Raw(`SELECT o.id, o.user_id, o.variant_id, COALESCE(v.label, ''), o.quantity, o.status,
		COALESCE(o.cancel_reason, ''), o.created_at, o.updated_at, o.paid_at, o.cancelled_at
		FROM orders o LEFT JOIN variants v ON v.id = o.variant_id
		WHERE o.item_id = ? AND o.id > ? ORDER BY o.id LIMIT ?`, itemID, after, n).Rows()
	if err != nil {
		return 0, fmt.Errorf("page orders of item %d after %q: %w", itemID, after, err)
	}
	defer rows.Close()
	o, read := Order{ItemID: itemID}, 0
	var paid, cancelled sql.NullTime
	for rows.Next() {
		err := rows.Scan(&o.ID, &o.UserID, &o.VariantID, &o.VariantLabel, &o.Quantity, &o.Status, &o.CancelReason,
			&o.CreatedAt, &o.UpdatedAt, &paid, &cancelled)
		if err != nil {
			return read, fmt.Errorf("page orders of item %d: %w", itemID, err)
		}
		o.PaidAt, o.CancelledAt = paid.Time, cancelled.Time
		read++
		if err := fn(&o); err != nil {
			return read, err
		}
	}
	if err := rows.Err(); err != nil {
		return read, fmt.Errorf("page orders of item %d: %w", itemID, err)
	}
	return read, nil
}

// CancelsByReason counts the sale's cancelled orders by cancel reason.
func (s *Store) CancelsByReason(ctx context.Context, itemID int64) (map[string]int, error) {
	var rows []struct {
		Reason string
		N      int
	}
	err := s.db.WithContext(ctx).Model(&row{}).Select("COALESCE(cancel_reason, '') AS reason, COUNT(*) AS n").
		Where("item_id = ? AND status = ?", itemID, StatusCancelled).Group("reason").Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("count cancels of item %d: %w", itemID, err)
	}
	out := make(map[string]int, len(rows))
	for _, r := range rows {
		out[r.Reason] = r.N
	}
	return out, nil
}

// Buyers counts the shoppers who took an order in the sale, cancelled or not.
func (s *Store) Buyers(ctx context.Context, itemID int64) (int, error) {
	var n int
	err := s.db.WithContext(ctx).Model(&row{}).Select("COUNT(DISTINCT user_id)").Where("item_id = ?", itemID).Scan(&n).Error
	if err != nil {
		return 0, fmt.Errorf("count buyers of item %d: %w", itemID, err)
	}
	return n, nil
}

// unitMoves is the sale's units over time: +quantity when an order was
// taken, -quantity when it was cancelled (at cancelled_at, or updated_at
// for an order cancelled before that was recorded). Its two parameters
// are the item id, twice.
const unitMoves = `SELECT created_at AS t, quantity AS d, 1 AS k FROM orders WHERE item_id = ?
	UNION ALL SELECT COALESCE(cancelled_at, updated_at), -quantity, 0 FROM orders WHERE item_id = ? AND status = 'cancelled'`

// Move is the units a sale's orders took (positive) or gave back
// (negative) in one bucket of time; Bucket counts buckets from the start.
type Move struct {
	Bucket int64
	Units  int
}

// LastMove is the time of the sale's latest order or cancellation; ok is
// false for a sale without orders.
func (s *Store) LastMove(ctx context.Context, itemID int64) (last time.Time, ok bool, err error) {
	var t sql.NullTime
	err = s.db.WithContext(ctx).Raw("SELECT MAX(t) FROM ("+unitMoves+") m", itemID, itemID).Row().Scan(&t)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("last move of item %d: %w", itemID, err)
	}
	return t.Time, t.Valid, nil
}

// Moves sums the sale's units taken and given back per bucket of width
// from start, in bucket order; a move before start falls in bucket 0.
func (s *Store) Moves(ctx context.Context, itemID int64, start time.Time, width time.Duration) ([]Move, error) {
	if width < time.Microsecond {
		return nil, errors.New("order moves: bucket under a microsecond")
	}
	var out []Move
	err := s.db.WithContext(ctx).Raw(`SELECT GREATEST(FLOOR(TIMESTAMPDIFF(MICROSECOND, ?, t) / ?), 0) AS bucket,
		CAST(SUM(d) AS SIGNED) AS units FROM (`+unitMoves+`) m GROUP BY bucket ORDER BY bucket`,
		start, width.Microseconds(), itemID, itemID).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("sell-through of item %d: %w", itemID, err)
	}
	return out, nil
}

// ReachedAt is the first moment the units held by the sale's orders
// reached total: when it sold out. ok is false if they never did. Of
// moves at the same instant, cancellations count first.
func (s *Store) ReachedAt(ctx context.Context, itemID int64, total int) (at time.Time, ok bool, err error) {
	var t sql.NullTime
	err = s.db.WithContext(ctx).Raw(`SELECT MIN(t) FROM (SELECT t, SUM(d) OVER (ORDER BY t, k ROWS UNBOUNDED PRECEDING) AS held
		FROM (`+unitMoves+`) m) h WHERE held >= ?`, itemID, itemID, total).Row().Scan(&t)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("sell-out time of item %d: %w", itemID, err)
	}
	return t.Time, t.Valid && total > 0, nil
}

// PaidUnits reads the sale's units in paid orders and its stock_total in
// one statement, so the two agree with each other. The waiting room tells
// from them whether a sell-out is final: units taken and not paid for can
// still come back. A sale that does not exist has 0 of both.
func (s *Store) PaidUnits(ctx context.Context, itemID int64) (paid, total int64, err error) {
	var r struct{ Paid, Total int64 }
	err = s.db.WithContext(ctx).Raw(`SELECT i.stock_total AS total,
		(SELECT COALESCE(SUM(o.quantity), 0) FROM orders o WHERE o.item_id = i.id AND o.status = ?) AS paid
		FROM items i WHERE i.id = ?`, StatusPaid, itemID).Scan(&r).Error
	if err != nil {
		return 0, 0, fmt.Errorf("paid units of item %d: %w", itemID, err)
	}
	return r.Paid, r.Total, nil
}
