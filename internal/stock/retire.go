package stock

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/redisconn"
)

// Queue is what a sale's stream still holds: the orders queued and not yet
// deleted by a persister, how many of them a persister has read and not
// acknowledged, and the entries MySQL refused (the dead letters, each as its
// fields).
type Queue struct {
	Entries     []keyspace.Entry
	Pending     int64
	DeadLetters []map[string]any
}

// closeScript ends a sale's window in Redis at the epoch: the purchase
// script refuses every request as ended whatever clock its server passes,
// and so does the waiting room. A sale Redis holds no meta for is left
// alone (it takes no order anyway).
var closeScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], 'ends_ms', '0')
end
return 0`)

// Close ends a sale in Redis for every server, whatever its clock: after
// it, no order can land in the sale's stream, so what Queue then reads is
// all the sale will ever have. Only for a sale MySQL has ended: the next
// warm or change of settings (under the sale's lock, as the caller must
// hold) copies MySQL's end back.
func (s *Store) Close(ctx context.Context, itemID int64) error {
	if err := closeScript.Run(ctx, s.rdb, []string{s.keys.Item(itemID).Meta()}).Err(); err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("close item %d in redis: %w", itemID, err)
	}
	return nil
}

// Queue reads a sale's stream, its consumer group's pending count and its
// dead letters. A sale Redis does not hold has an empty queue.
func (s *Store) Queue(ctx context.Context, itemID int64) (Queue, error) {
	k := s.keys.Item(itemID)
	var q Queue
	var err error
	if q.Entries, err = readStream(ctx, s.rdb, k.Stream()); err != nil {
		return Queue{}, err
	}
	pending, err := s.rdb.XPending(ctx, k.Stream(), keyspace.Group).Result()
	switch {
	case err == nil:
		q.Pending = pending.Count
	case !redisconn.NoGroup(err):
		return Queue{}, fmt.Errorf("read pending orders of item %d: %w", itemID, err)
	}
	dead, err := s.rdb.XRange(ctx, k.DeadLetters(), "-", "+").Result()
	if err != nil {
		return Queue{}, fmt.Errorf("read dead letters of item %d: %w", itemID, err)
	}
	for _, m := range dead {
		q.DeadLetters = append(q.DeadLetters, m.Values)
	}
	return q, nil
}

// Purge removes a sale from Redis for good: first from the registry, so the
// persisters stop reading its stream at their next look at it, then every
// key under its hash tag, those keyspace names and any other (the purchase
// limit buckets), found with SCAN on every primary of a cluster. It returns
// how many keys it deleted. Only a sale whose orders are all in MySQL may be
// purged: what Redis alone held is lost. Repeating it is safe.
func (s *Store) Purge(ctx context.Context, itemID int64) (int, error) {
	if err := s.rdb.SRem(ctx, s.keys.Registry(), strconv.FormatInt(itemID, 10)).Err(); err != nil {
		return 0, fmt.Errorf("unregister item %d: %w", itemID, err)
	}
	pattern := s.keys.Item(itemID).Pattern()
	var n atomic.Int64 // a cluster's primaries are scanned at once
	err := redisconn.ForEachPrimary(ctx, s.rdb, func(ctx context.Context, c *redis.Client) error {
		iter := c.Scan(ctx, 0, pattern, purgeChunk).Iterator()
		var keys []string
		for iter.Next(ctx) {
			if keys = append(keys, iter.Val()); len(keys) == purgeChunk {
				if err := del(ctx, c, keys, &n); err != nil {
					return err
				}
				keys = keys[:0]
			}
		}
		if err := iter.Err(); err != nil {
			return err
		}
		return del(ctx, c, keys, &n)
	})
	if err != nil {
		return int(n.Load()), fmt.Errorf("purge item %d: %w", itemID, err)
	}
	return int(n.Load()), nil
}

// purgeChunk is how many keys one SCAN step asks for and one DEL removes.
const purgeChunk = 1000

// del deletes keys, all of one sale and so of one cluster slot: one DEL is
// valid on a cluster too. A key SCAN returns twice is deleted once.
func del(ctx context.Context, c *redis.Client, keys []string, n *atomic.Int64) error {
	if len(keys) == 0 {
		return nil
	}
	deleted, err := c.Del(ctx, keys...).Result()
	n.Add(deleted)
	return err
}
