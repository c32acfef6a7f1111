package stocksync

import (
	"cmp"
	"context"
	"time"

	"github.com/seckill/seckill/internal/order"
)

// Cancel cancels an unpaid order, by the shopper (userID) or by a rule
// (userID ""), and puts its stock back on sale in both stores: MySQL first,
// in one transaction that also records the Redis step as owed, then Redis
// (stock back, buyer forgotten, so the shopper may buy again). If Redis fails
// the order is still cancelled: FinishReleases completes the Redis step later.
// Both steps are safe to repeat. It returns order.ErrNotFound and
// order.ErrPaid.
func (s *Syncer) Cancel(ctx context.Context, orderID, userID, reason string) (order.Order, error) {
	// Half a compensation must not be abandoned because a client hung up.
	ctx = context.WithoutCancel(ctx)
	o, err := order.NewStore(s.db).Cancel(ctx, orderID, userID, reason)
	if err != nil {
		return order.Order{}, err
	}
	if err := s.release(ctx, o); err != nil {
		s.log.Warn("cancelled in MySQL; Redis release deferred to the sweeper", "order_id", o.ID, "err", err)
	}
	return o, nil
}

// release gives a cancelled order's stock back in Redis and records it, under
// the item's repair lock: a repair measuring drift meanwhile would otherwise
// see the stock as missing and add it a second time.
func (s *Syncer) release(ctx context.Context, o order.Order) error {
	ctx = context.WithoutCancel(ctx) // Redis done and MySQL not told would look like drift
	unlock, err := s.stock.LockRepair(ctx, o.ItemID, 10*time.Second, 5*time.Second)
	if err != nil {
		return err
	}
	defer unlock()
	return s.releaseLocked(ctx, o)
}

// releaseLocked is release for a caller that holds the item's repair lock.
func (s *Syncer) releaseLocked(ctx context.Context, o order.Order) error {
	if _, err := s.stock.Release(ctx, o.ItemID, o.UserID, o.ID); err != nil {
		return err
	}
	return order.NewStore(s.db).MarkReleased(ctx, o.ID)
}

// CancelOverdue cancels up to limit unpaid orders older than timeout and
// returns how many it cancelled.
func (s *Syncer) CancelOverdue(ctx context.Context, timeout time.Duration, limit int) (int, error) {
	due, err := order.NewStore(s.db).Overdue(ctx, s.now().Add(-timeout), limit)
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

// FinishReleases does the Redis step of cancellations that a crash or a
// Redis outage interrupted, and returns how many it finished. One that fails
// is skipped, not allowed to hold up the others; the first error is returned.
func (s *Syncer) FinishReleases(ctx context.Context, limit int) (int, error) {
	owed, err := order.NewStore(s.db).Unreleased(ctx, 0, limit)
	if err != nil {
		return 0, err
	}
	var first error
	n := 0
	for _, o := range owed {
		if err := s.release(ctx, o); err != nil {
			first = cmp.Or(first, err)
			continue
		}
		n++
	}
	return n, first
}
