package stock

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// ErrQueueTooLong: Redis's streams hold more entries around an order's time
// than Queued reads for one question, so it cannot say whether the order is
// queued; the payment callback answers "pending" and the provider retries.
var ErrQueueTooLong = errors.New("stock: too many queued orders around the order's time to look through")

// queuedSkew is how far the clock that dated an order id may be from
// Redis's, whose clock dates stream entries: only entries within this of
// the order's time are read.
const queuedSkew = 10 * time.Minute

// queuedPage is how many entries one read takes; queuedBudget bounds the
// entries one question reads over every stream, so a signed callback costs
// Redis at most that (and a cheap empty read per sale), whatever the
// backlog.
const (
	queuedPage   = 1000
	queuedBudget = 10 * queuedPage
)

// Queued says whether Redis still holds order id on its way to MySQL: in
// the stream of a sale in the registry, waiting or read by a persister and
// not yet stored (a persister deletes an entry only once MySQL has its
// order). takenAt is when the order was taken (its id's time): only the
// entries added within queuedSkew of it are read, not a whole backlog. A
// dead letter is not held: MySQL refused it, its order never will be. It
// returns ErrQueueTooLong past queuedBudget entries, or Redis's errors.
func (s *Store) Queued(ctx context.Context, id string, takenAt time.Time) (bool, error) {
	items, err := s.WarmItems(ctx)
	if err != nil {
		return false, err
	}
	from := strconv.FormatInt(max(takenAt.Add(-queuedSkew).UnixMilli(), 0), 10)
	to := strconv.FormatInt(max(takenAt.Add(queuedSkew).UnixMilli(), 0), 10)
	budget := queuedBudget
	for _, item := range items {
		found, err := s.streamHolds(ctx, s.keys.Item(item).Stream(), from, to, id, &budget)
		if found || err != nil {
			return found, err
		}
	}
	return false, nil
}

// streamHolds looks for order id in stream between entry ids from and to,
// a page at a time, taking the entries it reads from *budget.
func (s *Store) streamHolds(ctx context.Context, stream, from, to, id string, budget *int) (bool, error) {
	for {
		if *budget <= 0 {
			return false, fmt.Errorf("look for order %s: %w", id, ErrQueueTooLong)
		}
		msgs, err := s.rdb.XRangeN(ctx, stream, from, to, queuedPage).Result()
		if err != nil {
			return false, fmt.Errorf("look for order %s in %s: %w", id, stream, err)
		}
		*budget -= len(msgs)
		for _, m := range msgs {
			if m.Values["id"] == id {
				return true, nil
			}
		}
		if len(msgs) < queuedPage {
			return false, nil
		}
		from = "(" + msgs[len(msgs)-1].ID
	}
}
