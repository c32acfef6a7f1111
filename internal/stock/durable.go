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
	c, err := s.primary(ctx, k)
	if err != nil {
		s.answer(reqs, nil, err, out)
		return
	}
	// A connection the network dropped answers nothing: the batch goes
	// again on a fresh one, as go-redis retries a plain pipeline.
	for range redialAttempts {
		if err = s.reserveOn(ctx, c, k, reqs, out, d); !dropped(err) {
			break
		}
	}
	s.queued(reqs, out)
}

// redialAttempts is how many connections a batch tries.
const redialAttempts = 3

// reserveOn runs the batch on a connection of its own to c and returns the
// script's error, if any.
func (s *Store) reserveOn(ctx context.Context, c *redis.Client, k keyspace.Item, reqs []Request, out []Outcome, d Durability) error {
	conn := c.Conn()
	defer conn.Close()
	addr := c.Options().Addr
	if err := s.checkShort(ctx, conn, k, addr, d); err != nil {
		holdAll(reqs, out, err)
		if errors.Is(err, ErrReplicationTimeout) {
			return nil
		}
		return err
	}
	res, w, err := s.evalWait(ctx, conn, reserveKeys(k, reqs), s.reserveArgs(reqs), d)
	s.answer(reqs, res, err, out)
	if err == nil && w.err == nil && vouchesOnly(out) {
		w = s.markWait(ctx, conn, k, d)
	}
	s.durable.note(addr, w, d)
	holdUnreplicated(reqs, out, w, d)
	return err
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
