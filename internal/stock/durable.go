package stock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
)

// reserveReplicated is ReserveBatch when acknowledgements need replicas:
// one script call and one WAIT per sale, on one connection to the sale's
// primary (WAIT counts only the writes of its own connection), the sales of
// a mixed batch concurrently.
func (s *Store) reserveReplicated(ctx context.Context, reqs []Request, out []Outcome, d Durability) {
	groups := groupByItem(reqs)
	if len(groups) == 1 {
		s.reserveGroupReplicated(ctx, reqs, out, d)
		return
	}
	var wg sync.WaitGroup
	for _, g := range groups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			groupOut := make([]Outcome, len(g.reqs))
			s.reserveGroupReplicated(ctx, g.reqs, groupOut, d)
			for j, at := range g.at {
				out[at] = groupOut[j]
			}
		}()
	}
	wg.Wait()
}

func (s *Store) reserveGroupReplicated(ctx context.Context, reqs []Request, out []Outcome, d Durability) {
	k := s.keys.Item(reqs[0].ItemID)
	// The primary is resolved on every attempt: one that answered MOVED,
	// ASK or READONLY (a slot moved, a failover the slot map has not caught
	// up with) did not run the script, and the batch goes to the primary
	// the reloaded map names; one that dropped the connection before the
	// script was sent may have been replaced by then.
	for attempt := range redialAttempts {
		c, err := s.primary(ctx, k)
		if err != nil {
			s.answer(reqs, nil, err, out)
			break
		}
		again := s.reserveOn(ctx, c, k, reqs, out, d)
		if !again {
			break
		}
		if cc, ok := s.rdb.(*redis.ClusterClient); ok && attempt+1 < redialAttempts {
			s.awaitNewMaster(ctx, cc, k, c.Options().Addr)
		}
	}
	s.queued(reqs, out)
}

// redialAttempts is how many connections a batch tries.
const redialAttempts = 3

// reserveOn runs the batch on a connection of its own to c, and reports
// whether the script did not run and the batch may go again. A connection
// dropped once the script was sent is not retried: the script may have run,
// and running it again could refuse (rate limit, waiting room, draw) a
// shopper who holds an order now; its 503 has the shopper retry with the
// same key, which replays the order if there is one.
func (s *Store) reserveOn(ctx context.Context, c *redis.Client, k keyspace.Item, reqs []Request, out []Outcome, d Durability) (again bool) {
	conn := c.Conn()
	defer conn.Close()
	addr := c.Options().Addr
	if err := s.checkShort(ctx, conn, k, addr, d); err != nil {
		holdAll(reqs, out, err)
		return dropped(err)
	}
	res, w, err := s.evalWait(ctx, conn, reserveKeys(k, reqs), s.reserveArgs(reqs), d)
	s.answer(reqs, res, err, out)
	if redirected(err) {
		return true
	}
	if err == nil && w.err == nil && vouchesOnly(out) {
		w = s.markWait(ctx, conn, k, d)
	}
	s.durable.note(addr, w, d)
	holdUnreplicated(reqs, out, w, d)
	return false
}

// redirected reports a node's refusal to run the script because another
// node serves the key now: MOVED, ASK, or READONLY from a primary demoted
// to replica.
func redirected(err error) bool {
	var rerr redis.Error
	if !errors.As(err, &rerr) {
		return false
	}
	msg := rerr.Error()
	return strings.HasPrefix(msg, "MOVED ") || strings.HasPrefix(msg, "ASK ") || strings.HasPrefix(msg, "READONLY ")
}

// awaitNewMaster has the cluster client reload its slot map (in the
// background) and waits, briefly, until it names another master for k than
// old: the next attempt then goes there.
func (s *Store) awaitNewMaster(ctx context.Context, cc *redis.ClusterClient, k keyspace.Item, old string) {
	cc.ReloadState(ctx)
	delay := 10 * time.Millisecond
	for range 6 {
		if c, err := cc.MasterForKey(ctx, k.Stock()); err == nil && c.Options().Addr != old {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		delay *= 2
		cc.ReloadState(ctx)
	}
}

// dropped reports an error of a connection that went away.
func dropped(err error) bool {
	var netErr net.Error
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &netErr) ||
		errors.Is(err, syscall.ECONNRESET)
}

// holdAll answers every request of a batch that did not run with err.
func holdAll(reqs []Request, out []Outcome, err error) {
	for i, r := range reqs {
		out[i] = Outcome{Err: fmt.Errorf("reserve item %d: %w", r.ItemID, err)}
	}
}

// primary is the client of the primary holding k's sale.
func (s *Store) primary(ctx context.Context, k keyspace.Item) (*redis.Client, error) {
	switch c := s.rdb.(type) {
	case *redis.Client:
		return c, nil
	case *redis.ClusterClient:
		return c.MasterForKey(ctx, k.Stock())
	}
	return nil, fmt.Errorf("stock: unsupported client %T", s.rdb)
}

// evalWait runs the reserve script and a WAIT in one pipeline, and returns
// the script's reply, the WAIT's answer and the script's error. A script
// Redis refused with NOSCRIPT (its cache was flushed) did not run: it is
// loaded, on the same connection, and the pair sent again.
func (s *Store) evalWait(ctx context.Context, conn *redis.Conn, keys []string, args []any, d Durability) ([]any, waited, error) {
	res, w, err := s.evalWaitOnce(ctx, conn, keys, args, d)
	if err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
		if err := s.reserve.Load(ctx, conn).Err(); err != nil {
			return nil, waited{}, fmt.Errorf("load script: %w", err)
		}
		res, w, err = s.evalWaitOnce(ctx, conn, keys, args, d)
	}
	return res, w, err
}

func (s *Store) evalWaitOnce(ctx context.Context, conn *redis.Conn, keys []string, args []any, d Durability) ([]any, waited, error) {
	var eval *redis.Cmd
	var wait *redis.IntCmd
	_, _ = conn.Pipelined(ctx, func(p redis.Pipeliner) error {
		eval = s.reserve.EvalSha(ctx, p, keys, args...)
		wait = waitCmd(ctx, p, d)
		return nil
	})
	res, err := eval.Slice()
	return res, waitResult(wait), err
}

// vouchesOnly reports whether out acknowledges orders (a replay, or an
// already_purchased answer naming the order) but took none: the script may
// then have written nothing, and a WAIT after it proves nothing about
// those orders, written on other connections.
func vouchesOnly(out []Outcome) bool {
	vouches := false
	for _, o := range out {
		switch {
		case o.Err == nil && !o.Replayed:
			return false
		case o.Err == nil, errors.Is(o.Err, ErrAlreadyPurchased):
			vouches = true
		}
	}
	return vouches
}

// holdUnreplicated turns every answer that tells a shopper an order exists
// into ErrReplicationTimeout when fewer than d.MinReplicas replicas have it
// (or the wait failed): the shopper retries with the same Idempotency-Key
// and finds the order if it survived. Refusals stand: they promise nothing.
func holdUnreplicated(reqs []Request, out []Outcome, w waited, d Durability) {
	if w.err == nil && w.acked >= int64(d.MinReplicas) {
		return
	}
	cause := fmt.Errorf("%d of %d replicas within %s", w.acked, d.MinReplicas, d.Timeout)
	if w.err != nil {
		cause = w.err
	}
	for i, o := range out {
		if o.Err == nil || errors.Is(o.Err, ErrAlreadyPurchased) {
			out[i] = Outcome{Err: fmt.Errorf("reserve item %d: %w: %v", reqs[i].ItemID, ErrReplicationTimeout, cause)}
		}
	}
}
