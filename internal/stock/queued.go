package stock

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// queuedSkew is how far the clock that dated an order id may be ahead of
// Redis's, whose clock dates stream entries: entries are read from this
// long before the order was taken.
const queuedSkew = 10 * time.Minute

// Queued says whether Redis still holds order id on its way to MySQL: in
// the stream of a sale in the registry, waiting or read by a persister and
// not yet stored (a persister deletes an entry only once MySQL has its
// order). takenAt is when the order was taken (its id's time): only the
// entries added since then, less queuedSkew, are read, not a whole
// backlog. A dead letter is not held: MySQL refused it, its order never
// will be. It returns Redis's errors.
func (s *Store) Queued(ctx context.Context, id string, takenAt time.Time) (bool, error) {
	items, err := s.WarmItems(ctx)
	if err != nil {
		return false, err
	}
	from := strconv.FormatInt(max(takenAt.Add(-queuedSkew).UnixMilli(), 0), 10)
	for _, item := range items {
		found, err := s.streamHolds(ctx, s.keys.Item(item).Stream(), from, id)
		if found || err != nil {
			return found, err
		}
	}
	return false, nil
}

// streamHolds looks for order id in stream from entry id from on, a page
// at a time.
func (s *Store) streamHolds(ctx context.Context, stream, from, id string) (bool, error) {
	const page = 1000
	for {
		msgs, err := s.rdb.XRangeN(ctx, stream, from, "+", page).Result()
		if err != nil {
			return false, fmt.Errorf("look for order %s in %s: %w", id, stream, err)
		}
		for _, m := range msgs {
			if m.Values["id"] == id {
				return true, nil
			}
		}
		if len(msgs) < page {
			return false, nil
		}
		from = "(" + msgs[len(msgs)-1].ID
	}
}
