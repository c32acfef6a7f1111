package sale

import (
	"context"
	"time"

	"github.com/seckill/seckill/internal/audit"
	"github.com/seckill/seckill/internal/order"
	"github.com/seckill/seckill/internal/sync/lock"
)

// Pay marks the shopper's confirmed order paid (payment is simulated);
// paying again is safe. It returns order.ErrNotFound and order.ErrCancelled.
func (s *Service) Pay(ctx context.Context, orderID, userID string) (order.Order, error) {
	o, err := s.orders.Pay(ctx, orderID, userID)
	if err == nil {
		s.orderChanged(ctx, o.ID)
	}
	return o, err
}

// Cancel cancels an unpaid order, by the shopper (userID) or by a rule
// (userID ""), and puts its stock back on sale in both stores: MySQL first,
// in one transaction that also records the Redis step as owed, then Redis
// (stock back, buyer forgotten, so the shopper may buy again). If Redis fails
// the order is still cancelled: the sweeper finishes the Redis step later.
// Both steps are safe to repeat. It is the one way to cancel an order. It
// returns order.ErrNotFound and order.ErrPaid.
func (s *Service) Cancel(ctx context.Context, orderID, userID, reason string) (order.Order, error) {
	// Half a compensation must not be abandoned because a client hung up.
	ctx = context.WithoutCancel(ctx)
	o, err := s.orders.CancelInMySQL(ctx, orderID, userID, reason)
	if err != nil {
		return order.Order{}, err
	}
	if err := s.sync.Release(ctx, o); err != nil {
		s.log.Warn("cancelled in MySQL; Redis release deferred to the sweeper", "order_id", o.ID, "err", err)
	}
	s.orderChanged(ctx, o.ID)
	return o, nil
}

// CancelOrder is an admin's cancel of an unpaid order, any shopper's, with
// reason admin: its stock goes back on sale as a shopper's cancel puts it
// (Cancel). Cancelling a cancelled order returns it unchanged and records
// nothing. It returns order.ErrNotFound and order.ErrPaid.
func (s *Service) CancelOrder(ctx context.Context, orderID string) (order.Order, error) {
	before, err := s.orders.Get(ctx, orderID)
	if err != nil {
		return order.Order{}, err
	}
	o, err := s.Cancel(ctx, orderID, "", order.ReasonAdmin)
	if err != nil {
		return order.Order{}, err
	}
	o.VariantLabel = before.VariantLabel
	if before.Status != order.StatusCancelled && o.CancelReason == order.ReasonAdmin {
		s.record(ctx, audit.ActionOrderCancel, o.ItemID, orderFields(before), orderFields(o))
	}
	return o, nil
}

// sweepBatch is how many overdue orders one query of the sweeper takes.
const sweepBatch = 200

// Sweep cancels unpaid orders older than timeout and finishes any
// cancellation whose Redis step was interrupted.
func (s *Service) Sweep(ctx context.Context, timeout time.Duration) error {
	for {
		n, err := s.cancelOverdue(ctx, timeout)
		if err != nil {
			return err
		}
		if n < sweepBatch {
			_, err = s.sync.FinishReleases(ctx, 500)
			return err
		}
	}
}

// SweepJob is Sweep as a periodic job of the fleet.
func (s *Service) SweepJob(every, timeout time.Duration) lock.Job {
	return lock.Job{Name: "sweeper", Every: every, Run: func(ctx context.Context) error { return s.Sweep(ctx, timeout) }}
}

// cancelOverdue cancels up to sweepBatch overdue orders and returns how
// many it cancelled.
func (s *Service) cancelOverdue(ctx context.Context, timeout time.Duration) (int, error) {
	due, err := s.orders.Overdue(ctx, s.now().Add(-timeout), sweepBatch)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, o := range due {
		// A payment may win the race between the query and here: then
		// ErrPaid, and the order stays paid.
		if _, err := s.Cancel(ctx, o.ID, "", order.ReasonTimeout); err == nil {
			n++
		}
	}
	return n, nil
}
