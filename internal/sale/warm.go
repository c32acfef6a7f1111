package sale

import (
	"context"
	"errors"
	"fmt"

	"github.com/seckill/seckill/internal/audit"
	"github.com/seckill/seckill/internal/room"
	"github.com/seckill/seckill/internal/stock"
)

// Reserve runs the reserve script for req (see stock.Store.Reserve), warming
// the sale from MySQL first if Redis does not know it. It returns
// stock.Reserve's errors, and catalog.ErrNotFound for a sale MySQL does not
// have either.
func (s *Service) Reserve(ctx context.Context, req stock.Request) (stock.Reservation, error) {
	// No closure through Warmed: this is the purchase's hot path.
	res, err := s.stock.Reserve(ctx, req)
	if !errors.Is(err, stock.ErrNotWarmed) {
		return res, err
	}
	if err := s.warmMissing(ctx, req.ItemID); err != nil {
		return stock.Reservation{}, err
	}
	return s.stock.Reserve(ctx, req)
}

// Warmed runs op, and if op finds the sale missing in Redis (created on
// another server, or Redis lost it), warms the sale from MySQL and runs op
// once more. It returns op's error, catalog.ErrNotFound, or the warm's.
func (s *Service) Warmed(ctx context.Context, itemID int64, op func(ctx context.Context) error) error {
	err := op(ctx)
	if !errors.Is(err, stock.ErrNotWarmed) && !errors.Is(err, room.ErrNotWarmed) {
		return err
	}
	if err := s.warmMissing(ctx, itemID); err != nil {
		return err
	}
	return op(ctx)
}

// warmMissing warms a sale Redis does not know. The sale is looked up in
// MySQL first, so made-up ids cost one query and never take a sync lock. A
// retired sale is not warmed: shoppers get what an ended sale answers
// (stock.ErrEnded), which it is.
func (s *Service) warmMissing(ctx context.Context, itemID int64) error {
	it, err := s.items.Get(ctx, itemID)
	if err != nil {
		return err
	}
	if it.RetiredAt != nil {
		return fmt.Errorf("item %d is retired: %w", itemID, stock.ErrEnded)
	}
	return s.sync.Warm(ctx, itemID)
}

// Warm is an admin's warm: it copies the sale's stock from MySQL into Redis
// (stocksync.Syncer.Warm) and records in the audit log the levels Redis had
// and the levels it got, read just before and just after (a purchase in
// between shows in them). It returns the warm's errors.
func (s *Service) Warm(ctx context.Context, itemID int64) error {
	before := s.levels(ctx, itemID)
	if err := s.sync.Warm(ctx, itemID); err != nil {
		return err
	}
	s.record(ctx, audit.ActionWarm, itemID, before, s.levels(ctx, itemID))
	return nil
}

// levels are a sale's stock in Redis as the audit log shows it, nil when
// Redis does not hold the sale; a read that fails says so instead.
func (s *Service) levels(ctx context.Context, itemID int64) any {
	lv, err := s.stock.Levels(ctx, []int64{itemID})
	if err != nil {
		return map[string]string{"error": fmt.Sprintf("could not read Redis: %v", err)}
	}
	if l, ok := lv[itemID]; ok {
		return l
	}
	return nil
}
