package order

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
)

// ConsumerName is worker i's name in the consumer group of every stream.
// The instance part must be stable across restarts of one server and
// distinct between servers running at once: a restarted worker finds what
// its previous run read and never acknowledged under this name (see
// recoverOwn). Two live workers sharing a name lose nothing either, since
// persisting is idempotent by order id; they only repeat each other's work
// at start.
func ConsumerName(instance string, i int) string { return instance + "/" + strconv.Itoa(i) }

// Orphans returns PersisterConfig.Adopt for worker i of an instance that
// runs workers of them: the consumers of the same instance whose index is
// workers or more (SECKILL_WORKERS was lowered since they ran) are shared
// out by index modulo workers, so each has exactly one adopter.
func Orphans(instance string, i, workers int) func(consumer string) bool {
	return func(consumer string) bool {
		index, ok := strings.CutPrefix(consumer, instance+"/")
		j, err := strconv.Atoi(index)
		return ok && err == nil && j >= workers && j%workers == i
	}
}

// recoverOwn persists, before reading anything new, the entries this
// worker's consumer holds in each stream not yet recovered: entries its
// previous run read and died before acknowledging (kill -9, OOM, a lost
// host that came back). Without it they would wait ClaimIdle for another
// worker's XAUTOCLAIM, with their shoppers watching "pending". It runs for
// every stream once, at start and as new streams are found; a stream whose
// recovery failed is tried again next round. The idle claim still takes
// what instances that never come back left behind.
func (p *Persister) recoverOwn(ctx context.Context, streams []string) {
	for _, stream := range streams {
		if p.recovered[stream] || ctx.Err() != nil {
			continue
		}
		n, err := p.recoverStream(ctx, stream)
		if err == nil {
			var adopted int
			adopted, err = p.adoptOrphans(ctx, stream)
			n += adopted
		}
		if err != nil {
			p.log.Warn("persister: cannot read its own unfinished entries; retrying next round",
				"consumer", p.cfg.Consumer, "stream", stream, "err", err)
			continue
		}
		if n > 0 {
			p.log.Info("persister: persisted entries its previous run had read and not finished",
				"consumer", p.cfg.Consumer, "stream", stream, "n", n)
		}
		p.recovered[stream] = true
	}
}

// recoverStream walks the consumer's pending entries of stream in id order
// (XREADGROUP with an id instead of ">" reads this consumer's pending list,
// not new entries) and persists them batch by batch. The walk moves past
// each batch by id, so entries left pending on purpose (malformed ones)
// are not read again and again.
func (p *Persister) recoverStream(ctx context.Context, stream string) (int, error) {
	after, n := "0", 0
	for ctx.Err() == nil {
		res, err := p.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{
			Group: keyspace.Group, Consumer: p.cfg.Consumer, Streams: []string{stream, after},
			Count: int64(p.cfg.Batch), Block: -1,
		}).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return n, fmt.Errorf("read pending entries of %s: %w", stream, err)
		}
		var msgs []redis.XMessage
		for _, s := range res {
			msgs = append(msgs, s.Messages...)
		}
		if len(msgs) == 0 {
			return n, nil
		}
		after = msgs[len(msgs)-1].ID
		live := p.ackDeleted(ctx, stream, msgs)
		p.handle(ctx, live)
		n += len(live)
	}
	return n, ctx.Err()
}

// ackDeleted acknowledges pending entries that are gone from the stream
// (Redis lists them with no fields) and returns the others. An entry is
// only deleted after its order was written (ack does XACK then XDEL), so
// one still pending is one whose XACK was lost: nothing is left to persist.
func (p *Persister) ackDeleted(ctx context.Context, stream string, msgs []redis.XMessage) []redis.XMessage {
	live := msgs[:0:0]
	var gone []string
	for _, m := range msgs {
		if m.Values == nil {
			gone = append(gone, m.ID)
			continue
		}
		live = append(live, m)
	}
	if len(gone) > 0 {
		if err := p.rdb.XAck(ctx, stream, keyspace.Group, gone...).Err(); err != nil {
			p.log.Warn("persister: cannot acknowledge deleted entries", "stream", stream, "err", err)
		}
	}
	return live
}

// adoptOrphans claims and persists the pending entries of the consumers
// cfg.Adopt names: workers of this instance that no longer exist, which
// would otherwise wait ClaimIdle like a dead instance's.
func (p *Persister) adoptOrphans(ctx context.Context, stream string) (int, error) {
	if p.cfg.Adopt == nil {
		return 0, nil
	}
	sum, err := p.rdb.XPending(ctx, stream, keyspace.Group).Result()
	if err != nil {
		return 0, fmt.Errorf("list consumers of %s: %w", stream, err)
	}
	n := 0
	for name := range sum.Consumers {
		if name == p.cfg.Consumer || !p.cfg.Adopt(name) {
			continue
		}
		m, err := p.adopt(ctx, stream, name)
		if n += m; err != nil {
			return n, err
		}
	}
	return n, nil
}

// adopt moves consumer's pending entries to this worker batch by batch
// (XCLAIM with no idle minimum) and persists them. Claimed entries leave
// consumer's list, so the loop ends; entries gone from the stream are
// dropped from it by XCLAIM itself.
func (p *Persister) adopt(ctx context.Context, stream, consumer string) (int, error) {
	n := 0
	for ctx.Err() == nil {
		pending, err := p.rdb.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: stream, Group: keyspace.Group,
			Consumer: consumer, Start: "-", End: "+", Count: int64(p.cfg.Batch)}).Result()
		if err != nil || len(pending) == 0 {
			return n, err
		}
		ids := make([]string, len(pending))
		for i, e := range pending {
			ids[i] = e.ID
		}
		msgs, err := p.rdb.XClaim(ctx, &redis.XClaimArgs{Stream: stream, Group: keyspace.Group,
			Consumer: p.cfg.Consumer, Messages: ids}).Result()
		if err != nil {
			return n, fmt.Errorf("claim %s's entries of %s: %w", consumer, stream, err)
		}
		if len(msgs) == 0 {
			// Before Redis 7 XCLAIM kept deleted entries listed, and this
			// would spin: the idle claim deals with what is left instead.
			return n, nil
		}
		p.handle(ctx, msgs)
		n += len(msgs)
	}
	return n, ctx.Err()
}
