package stock

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/ctxtime"
	"github.com/seckill/seckill/internal/keyspace"
)

// State is what Redis should hold for a sale, computed from MySQL by a
// LoadFunc.
type State struct {
	Variants map[int64]int64 // variant id -> available stock
	Meta
	Buyers      map[string]keyspace.Buyer // user id -> active order
	Idempotency map[string]keyspace.Buyer // user id + "\n" + key -> order
}

// LoadFunc computes the state of a sale from MySQL, given the stream entries
// still in Redis (orders that may not be in MySQL yet).
type LoadFunc func(ctx context.Context, pending []keyspace.Entry) (State, error)

const warmAttempts = 20

// Warm writes the state load computes into Redis under WATCH/MULTI. The watch
// covers every key a purchase or a persistence worker changes, so a purchase,
// a persisted batch or another warm landing between our reads and our write
// aborts the write and we start over: Redis is never left with a stale count.
// It returns ErrBusy if the sale kept changing for every attempt.
func (s *Store) Warm(ctx context.Context, itemID int64, load LoadFunc) error {
	k := s.keys.Item(itemID)
	if err := s.ensureGroup(ctx, k.Stream()); err != nil {
		return err
	}
	// Registered before the sale can take a purchase, so a worker always
	// reads its stream.
	if err := s.register(ctx, itemID); err != nil {
		return err
	}
	watched := []string{k.Stock(), k.VariantStock(), k.Meta(), k.Buyers(), k.Idempotency(), k.Stream()}
	for attempt := 0; attempt < warmAttempts; attempt++ {
		var ret keyspace.Return
		err := s.rdb.Watch(ctx, func(tx *redis.Tx) (err error) {
			ret, err = s.warmOnce(ctx, tx, k, load)
			return err
		}, watched...)
		if err == nil {
			// A warm may set more stock than servers last saw: it counts
			// as a return, so their sold-out marks are cleared.
			ret.ItemID = itemID
			s.returned(ctx, ret)
			return nil
		}
		if !errors.Is(err, redis.TxFailedErr) {
			return fmt.Errorf("warm item %d: %w", itemID, err)
		}
		if err := ctxtime.Sleep(ctx, backoff(attempt)); err != nil {
			return err
		}
	}
	return fmt.Errorf("warm item %d: %w", itemID, ErrBusy)
}

func (s *Store) warmOnce(ctx context.Context, tx *redis.Tx, k keyspace.Item, load LoadFunc) (keyspace.Return, error) {
	pending, err := readStream(ctx, tx, k.Stream())
	if err != nil {
		return keyspace.Return{}, err
	}
	st, err := load(ctx, pending)
	if err != nil {
		return keyspace.Return{}, err
	}
	var returns *redis.IntCmd
	total := st.Total()
	_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, k.Stock(), total, 0)
		p.Del(ctx, k.VariantStock(), k.Meta(), k.Buyers(), k.Idempotency())
		if len(st.Variants) > 0 {
			p.HSet(ctx, k.VariantStock(), counts(st.Variants))
		}
		p.HSet(ctx, k.Meta(), st.Meta.fields()...)
		if len(st.Buyers) > 0 {
			p.HSet(ctx, k.Buyers(), flatten(st.Buyers))
		}
		if len(st.Idempotency) > 0 {
			p.HSet(ctx, k.Idempotency(), flatten(st.Idempotency))
		}
		returns = p.Incr(ctx, k.Returns())
		return nil
	})
	if err != nil {
		return keyspace.Return{}, err
	}
	return keyspace.Return{Count: returns.Val(), Left: total}, nil
}

// Total is the whole sale's available stock.
func (st State) Total() int64 {
	var n int64
	for _, v := range st.Variants {
		n += v
	}
	return n
}

func counts(m map[int64]int64) []any {
	out := make([]any, 0, 2*len(m))
	for id, n := range m {
		out = append(out, strconv.FormatInt(id, 10), n)
	}
	return out
}

// ensureGroup creates the stream and its consumer group if missing, so the
// workers can read orders from the first purchase on.
func (s *Store) ensureGroup(ctx context.Context, stream string) error {
	err := s.rdb.XGroupCreateMkStream(ctx, stream, keyspace.Group, "0").Err()
	if err != nil && !strings.HasPrefix(err.Error(), "BUSYGROUP") {
		return fmt.Errorf("create consumer group on %s: %w", stream, err)
	}
	return nil
}

func (s *Store) register(ctx context.Context, itemID int64) error {
	if err := s.rdb.SAdd(ctx, s.keys.Registry(), strconv.FormatInt(itemID, 10)).Err(); err != nil {
		return fmt.Errorf("register item %d: %w", itemID, err)
	}
	return nil
}

// readStream returns every entry of stream, a page at a time.
func readStream(ctx context.Context, c redis.Cmdable, stream string) ([]keyspace.Entry, error) {
	var out []keyspace.Entry
	start := "-"
	for {
		msgs, err := c.XRangeN(ctx, stream, start, "+", 1000).Result()
		if err != nil {
			return nil, fmt.Errorf("read stream %s: %w", stream, err)
		}
		for _, m := range msgs {
			e, err := keyspace.ParseEntry(m.ID, m.Values)
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
		if len(msgs) < 1000 {
			return out, nil
		}
		start = "(" + msgs[len(msgs)-1].ID
	}
}

func flatten(m map[string]keyspace.Buyer) []any {
	out := make([]any, 0, 2*len(m))
	for field, b := range m {
		out = append(out, field, b.String())
	}
	return out
}

func backoff(attempt int) time.Duration {
	base := time.Duration(1+attempt) * 5 * time.Millisecond
	return base + rand.N(base)
}
