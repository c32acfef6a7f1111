package sale

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/seckill/seckill/internal/audit"
	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/sync/stocksync"
)

// ErrEnded: the sale has ended, so there is nothing to pause or resume.
var ErrEnded = errors.New("sale: the sale has ended")

// Pause stops a sale's purchases, purchase tokens and waiting-room
// admissions until Resume; orders already taken stay valid. Every server
// obeys at once: the reserve and room scripts read the flag from Redis, and
// tokens are issued against MySQL's row. Pausing a paused sale changes
// nothing.
func (s *Service) Pause(ctx context.Context, id int64) (catalog.Item, error) {
	return s.setPaused(ctx, id, true)
}

// Resume lets a paused sale sell again from where it stood.
func (s *Service) Resume(ctx context.Context, id int64) (catalog.Item, error) {
	return s.setPaused(ctx, id, false)
}

func (s *Service) setPaused(ctx context.Context, id int64, paused bool) (catalog.Item, error) {
	cur, err := s.items.Get(ctx, id)
	if err != nil {
		return catalog.Item{}, err
	}
	if !s.now().Before(cur.EndsAt) {
		return catalog.Item{}, fmt.Errorf("item %d: %w", id, ErrEnded)
	}
	if cur.Paused == paused {
		return s.reapplyMeta(ctx, id)
	}
	action := audit.ActionResume
	if paused {
		action = audit.ActionPause
	}
	return s.update(ctx, id, catalog.Patch{Paused: &paused}, action)
}

// End closes a sale now: its end moves to this moment (and its start too,
// if it had not opened), in MySQL and in the meta every server's scripts
// read. A sale already over is left as it is, so ending twice never moves
// the end again.
func (s *Service) End(ctx context.Context, id int64) (catalog.Item, error) {
	cur, err := s.items.Get(ctx, id)
	if err != nil {
		return catalog.Item{}, err
	}
	// MySQL keeps milliseconds, and so do the scripts.
	now := s.now().Truncate(time.Millisecond)
	if !now.Before(cur.EndsAt) {
		return s.reapplyMeta(ctx, id)
	}
	p := catalog.Patch{EndsAt: &now}
	if !cur.StartsAt.Before(now) {
		// A window must be longer than nothing (chk_items_window): a sale
		// ended at or before its opening closes as it would have opened.
		opened := now.Add(-time.Millisecond)
		p.StartsAt = &opened
	}
	return s.update(ctx, id, p, audit.ActionEnd)
}

// reapplyMeta copies the sale's settings from MySQL into the meta the
// scripts read, under the sale's lock. A pause or end whose MySQL change
// committed but whose Redis write failed answered an error; the admin's
// retry finds MySQL already changed and must still reach Redis, or the sale
// would go on selling while MySQL and the dashboard say it stopped.
func (s *Service) reapplyMeta(ctx context.Context, id int64) (catalog.Item, error) {
	var it catalog.Item
	err := s.sync.Exclusive(ctx, id, func(ctx context.Context) error {
		var err error
		if it, err = s.items.Get(ctx, id); err != nil {
			return err
		}
		return s.stock.SetMeta(ctx, id, stocksync.MetaOf(it))
	})
	if err != nil {
		return catalog.Item{}, fmt.Errorf("item %d: %w", id, err)
	}
	return it, nil
}
