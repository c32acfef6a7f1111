package draw

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/catalog"
)

// pass settles the offers of drawn sale id and offers its free units down
// the rankings. Redis decides who may buy (lua/reserve.lua); MySQL keeps
// the record this run brings up to date:
//
//  1. Each offer MySQL has open is copied to Redis if Redis lacks it (a
//     crash came between the two writes), with a full window from then;
//     then settled from Redis: bought, or expired here once its deadline
//     passed unbought.
//  2. Each variant's free units (stock left minus open offers, counted in
//     one step in Redis) go to its next entries by place: MySQL first, then
//     Redis. Only this job offers units, and a purchase takes a unit and an
//     offer together, so units counted free stay free until offered.
//
// A cancelled or timed-out order gives its unit back to the variant's
// stock, where step 2 finds it; its shopper's offer stays bought, so they
// cannot take it back.
func (s *Service) pass(ctx context.Context, id int64) error {
	it, err := catalog.NewStore(s.db).Get(ctx, id)
	if err != nil {
		return err
	}
	if err := s.settle(ctx, it); err != nil {
		return fmt.Errorf("settle offers of sale %d: %w", id, err)
	}
	for _, v := range it.Variants {
		if err := s.offerFree(ctx, it, v.ID); err != nil {
			return fmt.Errorf("offer units of sale %d: %w", id, err)
		}
	}
	return nil
}

func (s *Service) settle(ctx context.Context, it catalog.Item) error {
	var open []entryRow
	if err := s.db.WithContext(ctx).Where("item_id = ? AND offer_state = ?", it.ID, offerOpen).Find(&open).Error; err != nil {
		return err
	}
	k := s.keys.Item(it.ID)
	keys := []string{k.DrawOffers(), k.VariantStock()}
	held, err := s.rdb.HGetAll(ctx, k.DrawOffers()).Result()
	if err != nil {
		return err
	}
	now := s.now()
	for _, r := range open {
		v, ok := held[r.UserID]
		if !ok {
			// Its shopper could not buy while Redis lacked it (a crash came
			// between the two writes, or Redis lost the sale): the window
			// starts again from now.
			until := deadline(it, now)
			err := s.db.WithContext(ctx).Exec("UPDATE draw_entries SET deadline = ? WHERE item_id = ? AND entry_id = ? AND offer_state = ?",
				until, it.ID, r.EntryID, offerOpen).Error
			if err != nil {
				return err
			}
			r.Deadline = &until
			if v, err = s.offer.Run(ctx, s.rdb, keys, "publish", r.UserID, offerValue(r.VariantID, until)).Text(); err != nil {
				return err
			}
		}
		if stateOf(v) == offerOpen && !now.Before(*r.Deadline) {
			v, err = s.offer.Run(ctx, s.rdb, keys, "expire", r.UserID, strconv.FormatInt(now.UnixMilli(), 10)).Text()
			if err != nil {
				return err
			}
		}
		if state := stateOf(v); state != offerOpen {
			err := s.db.WithContext(ctx).Exec("UPDATE draw_entries SET offer_state = ? WHERE item_id = ? AND entry_id = ? AND offer_state = ?",
				state, it.ID, r.EntryID, offerOpen).Error
			if err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Service) offerFree(ctx context.Context, it catalog.Item, variantID int64) error {
	k := s.keys.Item(it.ID)
	now := s.now()
	free, err := s.offer.Run(ctx, s.rdb, []string{k.DrawOffers(), k.VariantStock()}, "free",
		strconv.FormatInt(variantID, 10), strconv.FormatInt(now.UnixMilli(), 10)).Int()
	if errors.Is(err, redis.Nil) || (err == nil && free == 0) {
		return nil
	}
	if err != nil {
		return err
	}
	var next []entryRow
	err = s.db.WithContext(ctx).Where("item_id = ? AND variant_id = ? AND offer_state IS NULL AND place IS NOT NULL", it.ID, variantID).
		Order("place").Limit(free).Find(&next).Error
	if err != nil || len(next) == 0 {
		return err
	}
	at := now.UTC().Truncate(time.Millisecond)
	until := deadline(it, at)
	for _, r := range next {
		err := s.db.WithContext(ctx).Exec("UPDATE draw_entries SET offer_state = ?, offered_at = ?, deadline = ? "+
			"WHERE item_id = ? AND entry_id = ? AND offer_state IS NULL", offerOpen, at, until, it.ID, r.EntryID).Error
		if err != nil {
			return err
		}
		err = s.offer.Run(ctx, s.rdb, []string{k.DrawOffers(), k.VariantStock()}, "publish", r.UserID, offerValue(variantID, until)).Err()
		if err != nil {
			return err
		}
	}
	s.log.InfoContext(ctx, "draw units passed down", "item_id", it.ID, "variant_id", variantID, "offers", len(next))
	return nil
}
