package stock_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/stock"
)

// TestQueuedIsBounded: the payment callback's look for an order in Redis
// reads only the entries within the skew of the order's time, on both
// sides, and no more than its budget of entries: past it, it cannot say
// (stock.ErrQueueTooLong, which the callback answers as pending), however
// long the backlog a signed callback points it at.
func TestQueuedIsBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	taken := t0.Add(time.Hour)
	// A store with one sale in the registry, whose stream gets the entries
	// add is given, in the order of their ids, before queued looks.
	newQueue := func() (add func(at time.Time, seq int, id string), queued func(id string) (bool, error)) {
		s, rdb, keys := newSale(t, 5, 1)
		stream := keys.Item(1).Stream()
		p := rdb.Pipeline()
		add = func(at time.Time, seq int, id string) {
			p.XAdd(ctx, &redis.XAddArgs{Stream: stream, ID: fmt.Sprintf("%d-%d", at.UnixMilli(), seq), Values: []any{"id", id}})
		}
		queued = func(id string) (bool, error) {
			if _, err := p.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
				t.Fatal(err)
			}
			return s.Queued(ctx, id, taken)
		}
		return add, queued
	}

	add, queued := newQueue()
	add(taken.Add(-stock.QueuedSkew-time.Millisecond), 0, "early")
	add(taken.Add(-stock.QueuedSkew), 0, "near-before")
	add(taken.Add(stock.QueuedSkew), 0, "near-after")
	add(taken.Add(stock.QueuedSkew+time.Millisecond), 0, "late")
	for id, want := range map[string]bool{"early": false, "near-before": true, "near-after": true, "late": false} {
		if got, err := queued(id); got != want || err != nil {
			t.Errorf("order %s queued: %v, %v; want %v", id, got, err, want)
		}
	}

	// A backlog past the budget between the order's time and its entry.
	add, queued = newQueue()
	for i := range stock.QueuedBudget {
		add(taken, i+1, "filler")
	}
	add(taken.Add(time.Millisecond), 0, "behind-the-backlog")
	if got, err := queued("behind-the-backlog"); got || !errors.Is(err, stock.ErrQueueTooLong) {
		t.Fatalf("an order behind %d entries: %v, %v; want stock.ErrQueueTooLong", stock.QueuedBudget, got, err)
	}
}
