package draw

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/catalog"
)

// minWindow is the least time to buy a unit offered by backfill must leave
// before the sale ends: an offer that cannot be used is no offer.
const minWindow = 10 * time.Second

// pass settles the offers of drawn sale id and offers its free units down
// the rankings. Redis decides who may buy (lua/reserve.lua); MySQL keeps
// the record this run brings up to date:
//
//  1. While the sale is paused, or before purchases open, no open offer's
//     window runs: its deadline is held at a full window from now (or from
//     the opening).
//  2. Each offer MySQL has open is copied to Redis if Redis lacks it (a
//     crash came between the two writes, or Redis lost the sale), with a
//     full window from then, unless its shopper has bought already; an
//     open one whose deadline moved is moved in Redis. Then it is settled
//     from Redis: bought, or expired here once its deadline passed unbought.
//  3. Unless the sale is paused, each variant's free units (stock left
//     minus open offers, counted in one step in Redis) go to its next
//     entries by place: MySQL first, then Redis. Only this job offers
//     units, and a purchase takes a unit and an offer together, so units
//     counted free stay free until offered.
//
// A cancelled or timed-out order gives its unit back to the variant's
// stock, where step 3 finds it; its shopper's offer stays bought, so they
// cannot take it back.
func (s *Service) pass(ctx context.Context, id int64) error {
	it, err := s.stores.Catalog.Get(ctx, id)
	if err != nil {
		return err
	}
	now := s.now()
	if err := s.holdWindows(ctx, it, now); err != nil {
		return fmt.Errorf("hold the windows of sale %d: %w", id, err)
	}
	if err := s.settle(ctx, it, now); err != nil {
		return fmt.Errorf("settle offers of sale %d: %w", id, err)
	}
	if it.Paused {
		return nil
	}
	for _, v := range it.Variants {
		if err := s.offerFree(ctx, it, v.ID, now); err != nil {
			return fmt.Errorf("offer units of sale %d: %w", id, err)
		}
	}
	return nil
}

func (s *Service) holdWindows(ctx context.Context, it catalog.Item, now time.Time) error {
	var floor time.Time
	switch {
	case it.Paused:
		floor = deadline(it, now)
	case now.Before(it.StartsAt): // an admin moved the opening later
		floor = deadline(it, it.StartsAt)
	default:
		return nil
	}
	return s.db.WithContext(ctx).Exec("UPDATE draw_entries SET deadline = ? WHERE item_id = ? AND offer_state = ? AND deadline < ?",
		floor, it.ID, offerOpen, floor).Error
}

func (s *Service) settle(ctx context.Context, it catalog.Item, now time.Time) error {
	var open []entryRow
	if err := s.db.WithContext(ctx).Where("item_id = ? AND offer_state = ?", it.ID, offerOpen).Find(&open).Error; err != nil {
		return err
	}
	held, err := s.stores.Stock.Offers(ctx, it.ID)
	if err != nil {
		return err
	}
	for _, r := range open {
		v, ok := held[r.UserID]
		state := stateOf(v)
		switch {
		case !ok:
			bought, err := s.hasOrder(ctx, it.ID, r.UserID)
			if err != nil {
				return err
			}
			if bought {
				state = offerBought // the order, cancelled or not, used the offer
				break
			}
			// Its shopper could not buy while Redis lacked it: the window
			// starts again from now.
			until := deadline(it, now)
			err = s.db.WithContext(ctx).Exec("UPDATE draw_entries SET deadline = ? WHERE item_id = ? AND entry_id = ? AND offer_state = ?",
				until, it.ID, r.EntryID, offerOpen).Error
			if err != nil {
				return err
			}
			r.Deadline = &until
			fallthrough
		case state == offerOpen && v != offerValue(r.VariantID, *r.Deadline):
			if v, err = s.stores.Stock.PublishOffer(ctx, it.ID, r.UserID, offerValue(r.VariantID, *r.Deadline)); err != nil {
				return err
			}
			state = stateOf(v)
		}
		if state == offerOpen && !now.Before(*r.Deadline) {
			if v, err = s.stores.Stock.ExpireOffer(ctx, it.ID, r.UserID, now); err != nil {
				return err
			}
			state = stateOf(v)
		}
		if state != offerOpen {
			err := s.db.WithContext(ctx).Exec("UPDATE draw_entries SET offer_state = ? WHERE item_id = ? AND entry_id = ? AND offer_state = ?",
				state, it.ID, r.EntryID, offerOpen).Error
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// hasOrder says whether user holds or held an order in sale itemID: one
// Redis still queues, or one MySQL has, whatever its status.
func (s *Service) hasOrder(ctx context.Context, itemID int64, user string) (bool, error) {
	queued, err := s.stores.Stock.HoldsBuyer(ctx, itemID, user)
	if err != nil || queued {
		return queued, err
	}
	return s.stores.Orders.Ordered(ctx, itemID, user)
}

func (s *Service) offerFree(ctx context.Context, it catalog.Item, variantID int64, now time.Time) error {
	at := now.UTC().Truncate(time.Millisecond)
	until := deadline(it, at)
	if until.Sub(later(at, it.StartsAt)) < minWindow {
		return nil
	}
	free, err := s.stores.Stock.FreeUnits(ctx, it.ID, variantID, now)
	if err != nil || free == 0 {
		return err
	}
	var next []entryRow
	err = s.db.WithContext(ctx).Where("item_id = ? AND variant_id = ? AND offer_state IS NULL AND place IS NOT NULL", it.ID, variantID).
		Order("place").Limit(free).Find(&next).Error
	if err != nil || len(next) == 0 {
		return err
	}
	for _, r := range next {
		r.OfferState, r.OfferedAt, r.Deadline = ptr(offerOpen), &at, &until
		mine := false // another run of the job may have offered it meanwhile
		err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
			res := tx.Exec("UPDATE draw_entries SET offer_state = ?, offered_at = ?, deadline = ? "+
				"WHERE item_id = ? AND entry_id = ? AND offer_state IS NULL", offerOpen, at, until, it.ID, r.EntryID)
			if mine = res.RowsAffected == 1; res.Error != nil || !mine {
				return res.Error
			}
			return s.out.Add(tx, offered(r, true))
		})
		if err != nil || !mine {
			return err
		}
		if _, err := s.stores.Stock.PublishOffer(ctx, it.ID, r.UserID, offerValue(variantID, until)); err != nil {
			return err
		}
	}
	s.log.InfoContext(ctx, "draw units passed down", "item_id", it.ID, "variant_id", variantID, "offers", len(next))
	return nil
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
