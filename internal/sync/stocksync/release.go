package stocksync

import (
	"cmp"
	"context"

	"github.com/seckill/seckill/internal/order"
)

// Release does the Redis step of a cancellation whose MySQL step has
// committed (see sale.Service.Cancel): the order's stock goes back on sale
// in Redis and its buyer is forgotten, so the shopper may buy again; then
// MySQL records the step as done. It runs under the sale's sync lock: a
// repair measuring drift meanwhile would otherwise see the stock as missing
// and add it a second time. It is safe to repeat.
func (s *Syncer) Release(ctx context.Context, o order.Order) error {
	ctx = context.WithoutCancel(ctx) // Redis done and MySQL not told would look like drift
	return s.Exclusive(ctx, o.ItemID, func(ctx context.Context) error {
		return s.releaseLocked(ctx, o)
	})
}

// releaseLocked is Release for a caller that holds the sale's sync lock.
func (s *Syncer) releaseLocked(ctx context.Context, o order.Order) error {
	if _, err := s.stock.Release(ctx, o.ItemID, o.VariantID, o.UserID, o.ID); err != nil {
		return err
	}
	return order.NewStore(s.db).MarkReleased(ctx, o.ID)
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
		if err := s.Release(ctx, o); err != nil {
			first = cmp.Or(first, err)
			continue
		}
		n++
	}
	return n, first
}
