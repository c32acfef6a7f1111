// Package orderfeed tells the pages following an order that it changed, so
// a shopper's page learns its order is confirmed without asking MySQL twice
// a second. The server that changes orders (a persister's batch, a payment,
// a cancel) announces their ids on one Redis pub/sub channel; every server
// listens once and wakes the event streams following those ids, which read
// the order again. A message lost to a dropped subscription only delays a
// page until its stream's next look (the streams also look now and then).
package orderfeed

import (
	"context"
	"log/slog"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/redisconn"
)

// Feed announces changed orders and wakes this server's followers of them.
type Feed struct {
	rdb     redis.UniversalClient
	channel string
	log     *slog.Logger

	mu        sync.Mutex
	followers map[string]map[chan struct{}]struct{}
}

// New returns a feed on channel (keyspace.Space.OrdersChannel).
func New(rdb redis.UniversalClient, channel string, log *slog.Logger) *Feed {
	return &Feed{rdb: rdb, channel: channel, log: log, followers: map[string]map[chan struct{}]struct{}{}}
}

// Announce tells every server the orders changed. It costs one PUBLISH
// per call, so callers announce a whole batch at once. A failure is only
// logged: the change itself is done, and followers look again later.
func (f *Feed) Announce(ctx context.Context, orderIDs []string) {
	if f == nil || len(orderIDs) == 0 {
		return
	}
	if err := f.rdb.Publish(ctx, f.channel, strings.Join(orderIDs, " ")).Err(); err != nil {
		f.log.Warn("could not announce changed orders; their pages see it on their next look", "n", len(orderIDs), "err", err)
	}
}

// Follow returns a channel that receives when the order may have changed,
// and the function that stops following. Wake-ups that come while one is
// unread merge into it.
func (f *Feed) Follow(orderID string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	if f == nil {
		return ch, func() {}
	}
	f.mu.Lock()
	set := f.followers[orderID]
	if set == nil {
		set = map[chan struct{}]struct{}{}
		f.followers[orderID] = set
	}
	set[ch] = struct{}{}
	f.mu.Unlock()
	return ch, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(set, ch)
		if len(f.followers[orderID]) == 0 { // the last follower, of this set or a newer one
			delete(f.followers, orderID)
		}
	}
}

// Followed is how many orders this server's streams follow.
func (f *Feed) Followed() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.followers)
}

// Run listens for announcements until ctx ends. go-redis subscribes again
// after a dropped connection.
func (f *Feed) Run(ctx context.Context) error {
	return redisconn.Listen(ctx, f.rdb, f.channel, func(payload string) { f.wake(strings.Fields(payload)) })
}

func (f *Feed) wake(orderIDs []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range orderIDs {
		for ch := range f.followers[id] {
			select {
			case ch <- struct{}{}:
			default: // one unread wake-up says it already
			}
		}
	}
}
