package stock

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/redisconn"
)

// Durability is how many replicas must hold a reservation before the
// server acknowledges it, and how long a batch waits for them. Redis
// replicates asynchronously: without it, a primary that dies before its
// replica has the last reservations takes them along, while their shoppers
// hold 202s (docs/scaling-out.md).
type Durability struct {
	MinReplicas int           // 0: acknowledge what the primary holds
	Timeout     time.Duration // the WAIT's timeout; rounded down to milliseconds, at least 1
}

// durability is what Store keeps of it: read by every batch, changed by the
// replica watcher while batches run.
type durability struct {
	min     atomic.Int64
	timeout atomic.Int64 // nanoseconds
	short   sync.Map     // addresses of primaries whose last WAIT fell short
}

// SetDurability sets what every later reservation batch waits for.
func (s *Store) SetDurability(d Durability) {
	s.durable.min.Store(int64(max(d.MinReplicas, 0)))
	s.durable.timeout.Store(int64(max(d.Timeout, time.Millisecond)))
}

// Durability returns what reservation batches wait for now.
func (s *Store) Durability() Durability {
	return Durability{MinReplicas: int(s.durable.min.Load()), Timeout: time.Duration(s.durable.timeout.Load())}
}

// Replicated returns nil once everything the primaries of the given sales
// held when it was called has reached the replicas Durability asks for, and
// ErrReplicationTimeout (wrapped) if not within its timeout.
func (s *Store) Replicated(ctx context.Context, itemIDs []int64) error {
	d := s.Durability()
	if d.MinReplicas == 0 {
		return nil
	}
	for _, id := range itemIDs {
		k := s.keys.Item(id)
		c, err := s.primary(ctx, k)
		if err != nil {
			return err
		}
		conn := c.Conn()
		w := s.markWait(ctx, conn, k, d)
		conn.Close()
		if w.err != nil {
			return w.err
		}
		if w.acked < int64(d.MinReplicas) {
			return fmt.Errorf("item %d: %w: %d of %d replicas within %s", id, ErrReplicationTimeout, w.acked, d.MinReplicas, d.Timeout)
		}
	}
	return nil
}

// ReplicatedEntries is Replicated for a persister's batch, and returns the
// entries still on their sale's primary once replicas have it: the check
// and the WAIT run on one connection, so a batch read from a primary that
// died since is checked against the one that took over. An entry the new
// primary lacks was never acknowledged (its shopper had a 503) and must not
// reach MySQL; nor must one another worker persisted and deleted since.
func (s *Store) ReplicatedEntries(ctx context.Context, entries []keyspace.Entry) ([]keyspace.Entry, error) {
	d := s.Durability()
	if d.MinReplicas == 0 {
		return entries, nil
	}
	byItem := map[int64][]keyspace.Entry{}
	var order []int64
	for _, e := range entries {
		if _, ok := byItem[e.ItemID]; !ok {
			order = append(order, e.ItemID)
		}
		byItem[e.ItemID] = append(byItem[e.ItemID], e)
	}
	var kept []keyspace.Entry
	for _, id := range order {
		present, err := s.entriesReplicated(ctx, s.keys.Item(id), byItem[id], d)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", id, err)
		}
		kept = append(kept, present...)
	}
	return kept, nil
}

// entriesReplicated waits for the replicas of k's primary and returns the
// entries its stream still holds, asked on the WAIT's own connection.
func (s *Store) entriesReplicated(ctx context.Context, k keyspace.Item, entries []keyspace.Entry, d Durability) ([]keyspace.Entry, error) {
	c, err := s.primary(ctx, k)
	if err != nil {
		return nil, err
	}
	conn := c.Conn()
	defer conn.Close()
	w := s.markWait(ctx, conn, k, d)
	if w.err != nil {
		return nil, w.err
	}
	if w.acked < int64(d.MinReplicas) {
		return nil, fmt.Errorf("%w: %d of %d replicas within %s", ErrReplicationTimeout, w.acked, d.MinReplicas, d.Timeout)
	}
	ranges := make([]*redis.XMessageSliceCmd, len(entries))
	_, err = conn.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, e := range entries {
			ranges[i] = p.XRangeN(ctx, k.Stream(), e.StreamID, e.StreamID, 1)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("look up entries: %w", err)
	}
	var present []keyspace.Entry
	for i, e := range entries {
		if len(ranges[i].Val()) == 1 {
			present = append(present, e)
		}
	}
	return present, nil
}

// note remembers whether the primary at addr had enough replicas.
func (d *durability) note(addr string, w waited, want Durability) {
	if w.err == nil && w.acked >= int64(want.MinReplicas) {
		d.short.Delete(addr)
		return
	}
	if w.err == nil {
		d.short.Store(addr, true)
	}
}

// checkShort returns ErrReplicationTimeout if the primary at addr fell
// short of replicas before and still does: its batches would take stock
// (orders a shopper is never told of) and wait out the timeout for nothing,
// so they do not run. Fewer replicas online and in sync than wanted says
// so at once; otherwise a mark written and waited for on conn decides, as a
// stalled replica still counts as online until its lag shows. A primary
// whose replicas cannot be counted (INFO denied, say) runs the batch, and
// its WAIT decides: the mark must never stick.
func (s *Store) checkShort(ctx context.Context, conn *redis.Conn, k keyspace.Item, addr string, want Durability) error {
	if _, short := s.durable.short.Load(addr); !short {
		return nil
	}
	n, err := redisconn.InSyncReplicas(ctx, conn)
	if err != nil {
		if dropped(err) {
			return fmt.Errorf("count replicas: %w", err)
		}
		return nil
	}
	if n < want.MinReplicas {
		return fmt.Errorf("%w: %d of %d replicas in sync", ErrReplicationTimeout, n, want.MinReplicas)
	}
	w := s.markWait(ctx, conn, k, want)
	if dropped(w.err) {
		return w.err
	}
	s.durable.note(addr, w, want)
	if w.err == nil && w.acked < int64(want.MinReplicas) {
		return fmt.Errorf("%w: %d of %d replicas within %s", ErrReplicationTimeout, w.acked, want.MinReplicas, want.Timeout)
	}
	return nil
}

// waited is a WAIT's answer: how many replicas have the connection's
// writes, or why that is unknown.
type waited struct {
	acked int64
	err   error
}

// waitCmd queues WAIT on p (which has no method for it). The client's read
// timeout (3 s by default) exceeds any sensible wait.
func waitCmd(ctx context.Context, p redis.Pipeliner, d Durability) *redis.IntCmd {
	cmd := redis.NewIntCmd(ctx, "wait", d.MinReplicas, max(d.Timeout.Milliseconds(), 1))
	_ = p.Process(ctx, cmd)
	return cmd
}

func waitResult(cmd *redis.IntCmd) waited {
	n, err := cmd.Result()
	if err != nil {
		return waited{err: fmt.Errorf("wait for replicas: %w", err)}
	}
	return waited{acked: n}
}

// markWait writes the sale's Replicated mark and waits for replicas to have
// it, and with it everything written before.
func (s *Store) markWait(ctx context.Context, conn *redis.Conn, k keyspace.Item, d Durability) waited {
	var mark *redis.StatusCmd
	var wait *redis.IntCmd
	_, _ = conn.Pipelined(ctx, func(p redis.Pipeliner) error {
		mark = p.Set(ctx, k.Replicated(), "1", time.Minute)
		wait = waitCmd(ctx, p, d)
		return nil
	})
	if err := mark.Err(); err != nil {
		return waited{err: fmt.Errorf("write replication mark: %w", err)}
	}
	return waitResult(wait)
}
