package order

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/redisconn"
)

// Repairer brings an item's Redis state back in line with MySQL after
// orders were rejected (stocksync.Syncer does).
type Repairer interface {
	Repair(ctx context.Context, itemID int64, rejected []keyspace.Entry) error
}

// Observer is told what each batch did (the metrics implement it).
type Observer interface {
	Persisted(n int)
	Rejected(n int)
	// Failed counts one failure of a stage of the work: "read", "reclaim",
	// "write", "ack", "repair" or "malformed". Persistence lag alone does
	// not tell a stuck worker from a slow one.
	Failed(stage string)
}

// PersisterConfig tunes a worker.
type PersisterConfig struct {
	Consumer   string        // the worker's name in the group: ConsumerName, stable across restarts
	Batch      int           // entries per MySQL transaction
	Block      time.Duration // how long one read waits for new entries
	ClaimIdle  time.Duration // entries pending this long on another worker are taken over
	ClaimEvery time.Duration // how often to look for such entries
	// Linger is how long a worker waits after a batch that was not full, so
	// the next one is bigger: each transaction costs MySQL a commit and a
	// few statements besides its rows, so a batch of hundreds costs far less
	// per order than batches of tens, and persisting is asynchronous anyway.
	// A full batch means a backlog, and the next is read at once. 0 reads
	// again at once always.
	Linger time.Duration
	// Adopt names other consumers whose pending entries this worker takes
	// back at start like its own (see Orphans); nil adopts none.
	Adopt func(consumer string) bool
}

// Persister is one worker of the consumer group: it reads reserved orders
// from every item stream, writes them to MySQL in batches, then XACKs and
// XDELs them. Entries another worker read but never acknowledged (it
// crashed) are taken over with XAUTOCLAIM after ClaimIdle; the worker's own
// entries, left by its previous run, are persisted first thing (recover.go).
//
// Streams are read one XREADGROUP each, pipelined, never one command over
// several streams: on a Redis Cluster the streams of different sales live in
// different slots, and a multi-stream read would fail with CROSSSLOT. Which
// streams to read is decided each round (see streamSet): the ones with work
// lately, the ones a hint names, and every registered stream once per Block.
type Persister struct {
	rdb    redis.UniversalClient
	keys   keyspace.Space
	store  *Store
	repair Repairer
	obs    Observer
	cfg    PersisterConfig
	log    *slog.Logger
	hints  *hintSub
	stored func(ctx context.Context, orderIDs []string)
	// replicated, if set, holds a batch back until replicas have it.
	replicated ReplicaGate
	// recovered holds the streams whose pending entries under this
	// worker's name have been persisted since it started.
	recovered map[string]bool
}

// OnStored has fn told the ids of each batch's orders once MySQL has them
// (or refused them), so their pages hear of it.
func (p *Persister) OnStored(fn func(ctx context.Context, orderIDs []string)) { p.stored = fn }

// NewPersister returns a worker; obs and hints may be nil.
func NewPersister(rdb redis.UniversalClient, keys keyspace.Space, store *Store, repair Repairer,
	obs Observer, hints *Hints, cfg PersisterConfig, log *slog.Logger) *Persister {
	if obs == nil {
		obs = nopObserver{}
	}
	return &Persister{rdb: rdb, keys: keys, store: store, repair: repair, obs: obs, cfg: cfg, log: log,
		hints: hints.subscribe(), recovered: map[string]bool{}}
}

// Idle rounds wait from minIdle, doubling up to the sweep interval.
const minIdle = 2 * time.Millisecond

// Run consumes until ctx ends. A batch already read is finished (written and
// acknowledged) even after ctx ends, so a graceful stop loses no work; it
// returns nil then.
func (p *Persister) Run(ctx context.Context) error {
	var lastClaim time.Time
	set := newStreamSet(p.cfg.Block)
	idle := minIdle
	for ctx.Err() == nil {
		if err := set.refresh(ctx, p.registered); err != nil {
			if !set.listed() {
				p.pause(ctx, err)
				continue
			}
			p.obs.Failed("read")
			p.log.Warn("persister: cannot re-read the stream registry; reading the streams already known",
				"consumer", p.cfg.Consumer, "err", err)
		}
		p.recoverOwn(ctx, set.all)
		if time.Since(lastClaim) >= p.cfg.ClaimEvery {
			lastClaim = time.Now()
			p.reclaim(ctx, set.all)
		}
		msgs, busy, err := p.read(ctx, set.targets(p.hinted(), time.Now()))
		if err != nil && ctx.Err() == nil {
			p.obs.Failed("read")
			p.log.Warn("persister: read failed", "consumer", p.cfg.Consumer, "err", err)
		}
		set.saw(busy, time.Now())
		if len(msgs) == 0 {
			p.idle(ctx, idle)
			idle = min(2*idle, p.cfg.Block)
			continue
		}
		idle = minIdle
		p.handle(ctx, msgs)
		if len(msgs) < p.cfg.Batch {
			wait(ctx, p.cfg.Linger)
		}
	}
	return nil
}

func (p *Persister) pause(ctx context.Context, err error) {
	if err != nil && ctx.Err() == nil {
		p.obs.Failed("read")
		p.log.Warn("persister: read failed", "consumer", p.cfg.Consumer, "err", err)
	}
	wait(ctx, p.cfg.Block)
}

// idle waits up to d, or less if a hint arrives.
func (p *Persister) idle(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	case <-p.hints.ready: // the next round takes the hinted sales
	}
}

func (p *Persister) hinted() []string { return p.streams(p.hints.take()) }

// registered lists the stream of every warmed sale.
func (p *Persister) registered(ctx context.Context) ([]string, error) {
	members, err := p.rdb.SMembers(ctx, p.keys.Registry()).Result()
	if err != nil {
		return nil, fmt.Errorf("list streams: %w", err)
	}
	return p.streams(keyspace.RegistryIDs(members)), nil
}

func (p *Persister) streams(ids []int64) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = p.keys.Item(id).Stream()
	}
	return out
}

// read takes up to a batch of new entries from each stream, one
// non-blocking XREADGROUP per stream in one pipeline (go-redis splits it by
// node on a cluster). Streams that answer are read even if others fail; the
// first failure is returned beside what was read, and so are the streams
// that had entries.
func (p *Persister) read(ctx context.Context, streams []string) (msgs []redis.XMessage, busy []string, first error) {
	if len(streams) == 0 {
		return nil, nil, nil
	}
	cmds := make([]*redis.XStreamSliceCmd, len(streams))
	p.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, s := range streams {
			cmds[i] = pl.XReadGroup(ctx, &redis.XReadGroupArgs{
				Group: keyspace.Group, Consumer: p.cfg.Consumer, Streams: []string{s, ">"},
				Count: int64(p.cfg.Batch), Block: -1, // -1: no BLOCK argument at all
			})
		}
		return nil
	})
	for i, c := range cmds {
		res, err := c.Result()
		// NOGROUP: the sale was retired since the registry was last read;
		// the next sweep drops its stream from the set.
		if err != nil && !errors.Is(err, redis.Nil) && !redisconn.NoGroup(err) && first == nil {
			first = fmt.Errorf("read stream %s: %w", streams[i], err)
		}
		for _, s := range res {
			if len(s.Messages) > 0 {
				msgs, busy = append(msgs, s.Messages...), append(busy, streams[i])
			}
		}
	}
	return msgs, busy, first
}

// reclaim takes over entries left pending by a dead worker.
func (p *Persister) reclaim(ctx context.Context, streams []string) {
	for _, stream := range streams {
		start := "0-0"
		for ctx.Err() == nil {
			msgs, next, err := p.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{
				Stream: stream, Group: keyspace.Group, Consumer: p.cfg.Consumer,
				MinIdle: p.cfg.ClaimIdle, Start: start, Count: int64(p.cfg.Batch),
			}).Result()
			if err != nil {
				if !redisconn.NoGroup(err) { // retired meanwhile
					p.obs.Failed("reclaim")
					p.log.Warn("persister: reclaim failed", "stream", stream, "err", err)
				}
				break
			}
			if len(msgs) > 0 {
				p.log.Info("persister: reclaimed entries", "stream", stream, "n", len(msgs))
				p.handle(ctx, msgs)
			}
			if next == "0-0" || next == "" {
				break
			}
			start = next
		}
	}
}

func wait(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

type nopObserver struct{}

func (nopObserver) Persisted(int) {}
func (nopObserver) Rejected(int)  {}
func (nopObserver) Failed(string) {}
