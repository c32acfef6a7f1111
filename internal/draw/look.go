package draw

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/catalog"
)

// A shopper looking at their entry after the draw: won (and the offer's
// state), on the waitlist, or lost.

// ErrNoEntry: Look found no entry of the shopper in the sale.
var ErrNoEntry = errors.New("draw: the shopper has not entered")

// Look returns user's entry in draw sale itemID and, once drawn, how it
// stands.
func (s *Service) Look(ctx context.Context, itemID int64, user string) (Entry, error) {
	it, err := s.item(ctx, itemID)
	if err != nil {
		return Entry{}, err
	}
	var row entryRow
	err = s.db.WithContext(ctx).Take(&row, "item_id = ? AND user_id = ?", itemID, user).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return Entry{}, ErrNoEntry
	}
	if err != nil {
		return Entry{}, err
	}
	e := entryOf(it, row)
	now := s.now()
	if it.DrawnAt == nil || row.Place == nil {
		if !now.Before(it.EndsAt) {
			e.Result = ResultLost // ended before it was drawn, or its variant removed
		}
		return e, nil
	}
	if row.OfferState != nil {
		return s.won(ctx, it, row, e, now), nil
	}
	st, err := s.standing(ctx, it, row.VariantID)
	if err != nil {
		return Entry{}, err
	}
	if !now.Before(it.EndsAt) || st.finished {
		e.Result = ResultLost
		return e, nil
	}
	pos := *row.Place - st.reached
	e.Result, e.Position = ResultWaitlist, &pos
	return e, nil
}

// won is an entry offered a unit: the offer's state is Redis's, which a
// purchase changes at once; MySQL's follows within a run of the job.
func (s *Service) won(ctx context.Context, it catalog.Item, row entryRow, e Entry, now time.Time) Entry {
	stored := *row.OfferState
	e.Result, e.Position, e.OfferState = ResultWon, row.Place, stored
	if live, ok, err := s.stores.Stock.OfferOf(ctx, it.ID, row.UserID); err == nil && ok {
		e.OfferState = stateOf(live)
	}
	vouched := e.OfferState != offerBought || s.acknowledged(ctx, it.ID)
	if !vouched && stored != offerBought {
		e.OfferState = stored
	}
	if e.OfferState == offerOpen && row.Deadline != nil && now.Before(*row.Deadline) {
		d := row.Deadline.UTC()
		e.Deadline = &d
	} else if e.OfferState == offerOpen {
		e.OfferState = offerExpired // the job has not marked it yet
	}
	if e.OfferState == offerBought && vouched {
		// Unreadable, the order is left out: the entry shows without it.
		if bs, err := s.stores.Stock.BuyerOf(ctx, []int64{it.ID}, row.UserID); err == nil {
			if b, ok := bs[it.ID]; ok {
				e.OrderID = &b.OrderID
			}
		}
	}
	return e
}

// acknowledged reports whether a purchase Redis holds may be shown (its
// order, the offer bought): only once the replicas a purchase waits for
// have it, as its 202 was, so a failover cannot take back what the entry
// showed. Until then the entry shows MySQL's state, and no order.
func (s *Service) acknowledged(ctx context.Context, itemID int64) bool {
	return s.replicated == nil || s.replicated(ctx, []int64{itemID}) == nil
}

// WaitReplicated has a winner's entry show a purchase Redis holds only once
// replicas have it (stock.Store.Replicated). Set it before serving.
func (s *Service) WaitReplicated(gate func(ctx context.Context, itemIDs []int64) error) {
	s.replicated = gate
}

type variantKey struct{ item, variant int64 }

// standingRead is how far a variant's ranking has been offered, and
// whether it is finished: every unit paid for, so no unit can come back to
// its waitlist (a paid order is not cancelled by its shopper).
type standingRead struct {
	at       time.Time
	reached  int
	finished bool
}

// standing reads a variant's standing at most once a second per server: a
// waitlist of thousands polls it.
func (s *Service) standing(ctx context.Context, it catalog.Item, variantID int64) (standingRead, error) {
	now := s.wall()
	key := variantKey{it.ID, variantID}
	s.mu.Lock()
	st, ok := s.standings[key]
	s.mu.Unlock()
	if ok && now.Sub(st.at) < time.Second && !now.Before(st.at) {
		return st, nil
	}
	var read struct{ Reached *int }
	err := s.db.WithContext(ctx).Raw("SELECT MAX(place) AS reached FROM draw_entries WHERE item_id = ? AND variant_id = ? AND offer_state IS NOT NULL",
		it.ID, variantID).Scan(&read).Error
	if err != nil {
		return standingRead{}, err
	}
	paid, err := s.stores.Orders.PaidOrders(ctx, it.ID, variantID)
	if err != nil {
		return standingRead{}, err
	}
	st = standingRead{at: now}
	if read.Reached != nil {
		st.reached = *read.Reached
	}
	if v, ok := it.Variant(variantID); ok {
		st.finished = paid >= v.StockTotal
	}
	s.mu.Lock()
	s.standings[key] = st
	s.mu.Unlock()
	return st, nil
}

// stateOf reads an offer's state from its Redis value.
func stateOf(v string) string {
	switch {
	case strings.HasSuffix(v, ":"+offerBought):
		return offerBought
	case strings.HasSuffix(v, ":"+offerExpired):
		return offerExpired
	default:
		return offerOpen
	}
}

// offerValue is an open offer as Redis holds it.
func offerValue(variantID int64, deadline time.Time) string {
	return strconv.FormatInt(variantID, 10) + ":" + strconv.FormatInt(deadline.UnixMilli(), 10)
}
