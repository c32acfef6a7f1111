package stock

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/lua"
)

// The offers of draw sales: which shopper may buy which variant until when
// (keyspace.Item.DrawOffers). They sit next to the sale's stock because a
// purchase takes a unit and an offer in one step (lua/reserve.lua), and the
// draw counts free units against both in one step (lua/offer.lua). Package
// draw decides who is offered what and keeps its record in MySQL; it reads
// and writes the offers only through these methods. An offer's value is
// "variantID:deadlineMs", then ":bought" or ":expired" once settled.

// offerScript is shared by every store: a Script holds no connection.
var offerScript = redis.NewScript(lua.Offer)

// offerKeys is KEYS for lua/offer.lua, in its order.
func (s *Store) offerKeys(itemID int64) []string {
	k := s.keys.Item(itemID)
	return []string{k.DrawOffers(), k.VariantStock()}
}

// PublishOffers writes the offers of a sale just drawn, user id -> value,
// in one write: nothing is settled before the draw, so none is overwritten.
func (s *Store) PublishOffers(ctx context.Context, itemID int64, offers map[string]string) error {
	if len(offers) == 0 {
		return nil
	}
	if err := s.rdb.HSet(ctx, s.keys.Item(itemID).DrawOffers(), offers).Err(); err != nil {
		return fmt.Errorf("publish the offers of sale %d: %w", itemID, err)
	}
	return nil
}

// Offers returns every offer of sale itemID, user id -> value.
func (s *Store) Offers(ctx context.Context, itemID int64) (map[string]string, error) {
	held, err := s.rdb.HGetAll(ctx, s.keys.Item(itemID).DrawOffers()).Result()
	if err != nil {
		return nil, fmt.Errorf("read the offers of sale %d: %w", itemID, err)
	}
	return held, nil
}

// OfferOf returns userID's offer in sale itemID; ok is false if Redis holds
// none.
func (s *Store) OfferOf(ctx context.Context, itemID int64, userID string) (v string, ok bool, err error) {
	v, err = s.rdb.HGet(ctx, s.keys.Item(itemID).DrawOffers(), userID).Result()
	if errors.Is(err, redis.Nil) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read an offer of sale %d: %w", itemID, err)
	}
	return v, true, nil
}

// PublishOffer writes userID's open offer value, or moves the deadline of
// their open one, unless theirs is settled (an offer only moves forward);
// it returns the value Redis now holds.
func (s *Store) PublishOffer(ctx context.Context, itemID int64, userID, value string) (string, error) {
	v, err := offerScript.Run(ctx, s.rdb, s.offerKeys(itemID), "publish", userID, value).Text()
	if err != nil {
		return "", fmt.Errorf("publish an offer of sale %d: %w", itemID, err)
	}
	return v, nil
}

// ExpireOffer settles userID's open offer as expired if its deadline passed
// by now, so it can no longer buy; it returns the value Redis now holds,
// and an error wrapping redis.Nil if it holds none.
func (s *Store) ExpireOffer(ctx context.Context, itemID int64, userID string, now time.Time) (string, error) {
	v, err := offerScript.Run(ctx, s.rdb, s.offerKeys(itemID), "expire", userID, strconv.FormatInt(now.UnixMilli(), 10)).Text()
	if err != nil {
		return "", fmt.Errorf("expire an offer of sale %d: %w", itemID, err)
	}
	return v, nil
}

// FreeUnits returns the units of variantID nobody holds an open offer for
// (its stock left minus its open offers, read in one step, so a purchase
// between two reads cannot make a unit look free twice).
func (s *Store) FreeUnits(ctx context.Context, itemID, variantID int64, now time.Time) (int, error) {
	n, err := offerScript.Run(ctx, s.rdb, s.offerKeys(itemID), "free",
		strconv.FormatInt(variantID, 10), strconv.FormatInt(now.UnixMilli(), 10)).Int()
	if err != nil {
		return 0, fmt.Errorf("count the free units of sale %d: %w", itemID, err)
	}
	return n, nil
}

// HoldsBuyer reports whether Redis still queues an order of userID in sale
// itemID, whatever became of it since.
func (s *Store) HoldsBuyer(ctx context.Context, itemID int64, userID string) (bool, error) {
	held, err := s.rdb.HExists(ctx, s.keys.Item(itemID).Buyers(), userID).Result()
	if err != nil {
		return false, fmt.Errorf("read the buyers of sale %d: %w", itemID, err)
	}
	return held, nil
}
