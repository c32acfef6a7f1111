package order

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-sql-driver/mysql"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/seckill/seckill/internal/webhook"
)

// Pay marks a confirmed order paid (payment itself is simulated). Paying a
// paid order again returns it unchanged, so a retried payment is safe. It
// returns ErrNotFound for an order that is not userID's and ErrCancelled if a
// cancel or the payment timeout won the race.
func (s *Store) Pay(ctx context.Context, id, userID string) (Order, error) {
	return s.transition(ctx, "pay", id, userID, func(tx *gorm.DB, cur *row) error {
		switch cur.Status {
		case StatusCancelled:
			return ErrCancelled
		case StatusConfirmed:
			err := tx.Model(&row{}).Where("id = ?", id).Updates(map[string]any{"status": StatusPaid, "paid_at": s.now()}).Error
			if err != nil {
				return err
			}
			cur.Status = StatusPaid
			return s.announce(tx, webhook.OrderPaid, cur.order())
		}
		return nil
	})
}

// CancelInMySQL is the MySQL step of a cancellation, and only that: it
// cancels an unpaid order and puts its stock back on sale in MySQL, in one
// transaction that also records the Redis step as owed (see Unreleased).
// Alone it leaves the unit held in Redis until the sweeper settles the owed
// step: cancel orders with sale.Service.Cancel, which does both. userID ""
// cancels any shopper's order (the payment timeout). Cancelling a cancelled
// order returns it unchanged. It returns ErrNotFound and ErrPaid.
func (s *Store) CancelInMySQL(ctx context.Context, id, userID, reason string) (Order, error) {
	return s.transition(ctx, "cancel", id, userID, func(tx *gorm.DB, cur *row) error {
		switch cur.Status {
		case StatusPaid:
			return ErrPaid
		case StatusConfirmed:
			if err := cancelTx(tx, cur, reason, s.now()); err != nil {
				return err
			}
			return s.announce(tx, webhook.OrderCancelled, cur.order())
		}
		return nil
	})
}

// transition runs step on the order under its row lock, in one
// transaction, so concurrent pays, cancels and timeouts have one winner.
func (s *Store) transition(ctx context.Context, op, id, userID string, step func(*gorm.DB, *row) error) (Order, error) {
	var o Order
	run := func(tx *gorm.DB) error {
		cur, err := lockOrder(tx, id, userID)
		if err != nil {
			return err
		}
		if err := step(tx, &cur); err != nil {
			return err
		}
		o = cur.order()
		return nil
	}
	err := s.db.WithContext(ctx).Transaction(run)
	// A deadlock rolled the whole transaction back, so running it again is
	// safe: a persister's batch holds the sale's row while its insert of the
	// shopper's next order waits for this order's unique key, which this
	// transaction holds while it waits for the sale's row.
	for tries := 1; isDeadlock(err) && tries < 3; tries++ {
		err = s.db.WithContext(ctx).Transaction(run)
	}
	if err != nil {
		return Order{}, fmt.Errorf("%s order %s: %w", op, id, err)
	}
	return o, nil
}

func cancelTx(tx *gorm.DB, cur *row, reason string, at time.Time) error {
	// The sale's row before the order's change: it is the lock every writer
	// of its stock takes. Changing the order's status first changes its
	// (item_id, active_user_id) key, and the foreign key check that follows
	// takes a shared lock on the sale's row: two cancels of one sale then
	// each held one and waited for the other's to go, a deadlock.
	res := tx.Exec("UPDATE items SET stock = stock + ? WHERE id = ?", cur.Quantity, cur.ItemID)
	if res.Error != nil {
		return res.Error
	}
	err := tx.Model(&row{}).Where("id = ?", cur.ID).Updates(map[string]any{
		"status": StatusCancelled, "cancel_reason": reason, "redis_released": false, "cancelled_at": at,
	}).Error
	if err != nil {
		return err
	}
	res = tx.Exec("UPDATE variants SET stock = stock + ? WHERE id = ?", cur.Quantity, cur.VariantID)
	if res.Error != nil {
		return res.Error
	}
	cur.Status, cur.CancelReason = StatusCancelled, &reason
	return nil
}

// lockOrder reads the order for update; another shopper's order is not found.
func lockOrder(tx *gorm.DB, id, userID string) (row, error) {
	var cur row
	err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).Take(&cur, "id = ?", id).Error
	if errors.Is(err, gorm.ErrRecordNotFound) || (err == nil && userID != "" && cur.UserID != userID) {
		return row{}, ErrNotFound
	}
	return cur, err
}

// Overdue returns up to limit confirmed (unpaid) orders created before
// before, oldest first: the ones the payment timeout cancels.
func (s *Store) Overdue(ctx context.Context, before time.Time, limit int) ([]Order, error) {
	return s.find(ctx, s.db.WithContext(ctx).Where("status = ? AND created_at < ?", StatusConfirmed, before).
		Order("created_at").Limit(limit))
}

// Unreleased returns up to limit cancelled orders whose stock has not been
// given back in Redis yet, oldest first; itemID 0 means any item.
func (s *Store) Unreleased(ctx context.Context, itemID int64, limit int) ([]Order, error) {
	q := s.db.WithContext(ctx).Where("redis_released = ?", false)
	if itemID != 0 {
		q = q.Where("item_id = ?", itemID)
	}
	return s.find(ctx, q.Order("created_at, id").Limit(limit))
}

// MarkReleased records that a cancelled order's Redis step is done.
func (s *Store) MarkReleased(ctx context.Context, id string) error {
	if err := s.db.WithContext(ctx).Model(&row{}).Where("id = ?", id).Update("redis_released", true).Error; err != nil {
		return fmt.Errorf("mark order %s released: %w", id, err)
	}
	return nil
}

// isDeadlock says whether err is InnoDB choosing this transaction as a
// deadlock's victim (MySQL error 1213).
func isDeadlock(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == 1213
}
