package stock

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
)

// Request asks for a reservation.
type Request struct {
	ItemID         int64
	UserID         string
	Quantity       int
	OrderID        string // used if the reservation succeeds
	IdempotencyKey string // "" for none
	Now            time.Time
	// Admitted says the request carries the waiting room's admission for
	// this shopper and sale; a sale with a waiting room refuses others.
	Admitted bool
}

// Reservation is a successful (or replayed) reservation.
type Reservation struct {
	keyspace.Buyer
	StockLeft int64 // -1 when replayed
	Replayed  bool  // the idempotency key had already reserved this order
	Returns   int64 // the sale's count of stock returns when it ran
}

// Outcome is the answer to one request of a batch: a reservation or the
// error Reserve would have returned.
type Outcome struct {
	Reservation
	Err error
}

// Reserve runs lua/reserve.lua for r. Once Run has started, concurrent calls
// share script calls (see ReserveBatch). It returns ErrNotWarmed,
// ErrNotStarted, ErrEnded, ErrNotAdmitted, ErrOverLimit,
// *AlreadyPurchasedError, *SoldOutError or ErrIdempotencyConflict when no
// stock was taken, or a Redis error.
func (s *Store) Reserve(ctx context.Context, r Request) (Reservation, error) {
	o := s.batcher.Do(ctx, r)
	return o.Reservation, o.Err
}

// ReserveBatch reserves for every request, in order, with one script call
// per sale and one round trip in all, and writes each answer to out. The
// answers are those of running the requests one after another.
func (s *Store) ReserveBatch(ctx context.Context, reqs []Request, out []Outcome) {
	first := reqs[0].ItemID
	for _, r := range reqs[1:] {
		if r.ItemID != first {
			s.reservePipelined(ctx, reqs, out)
			return
		}
	}
	k := s.keys.Item(first)
	res, err := s.reserve.Run(ctx, s.rdb, k.ReserveKeys(), reserveArgs(reqs)...).Slice()
	s.answer(reqs, res, err, out)
	s.queued(reqs, out)
}

// reservePipelined runs one script call per sale, all in one pipeline. A
// call Redis refused with NOSCRIPT (its script cache was flushed) did not
// run, so it is retried with Run, which loads the script.
func (s *Store) reservePipelined(ctx context.Context, reqs []Request, out []Outcome) {
	groups := groupByItem(reqs)
	cmds := make([]*redis.Cmd, len(groups))
	s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, g := range groups {
			cmds[i] = s.reserve.EvalSha(ctx, p, s.keys.Item(g.item).ReserveKeys(), reserveArgs(g.reqs)...)
		}
		return nil
	})
	for i, g := range groups {
		res, err := cmds[i].Slice()
		if err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
			res, err = s.reserve.Run(ctx, s.rdb, s.keys.Item(g.item).ReserveKeys(), reserveArgs(g.reqs)...).Slice()
		}
		groupOut := make([]Outcome, len(g.reqs))
		s.answer(g.reqs, res, err, groupOut)
		s.queued(g.reqs, groupOut)
		for j, at := range g.at {
			out[at] = groupOut[j]
		}
	}
}

type itemGroup struct {
	item int64
	reqs []Request
	at   []int // index of each request in the batch
}

func groupByItem(reqs []Request) []itemGroup {
	var groups []itemGroup
	for i, r := range reqs {
		j := 0
		for j < len(groups) && groups[j].item != r.ItemID {
			j++
		}
		if j == len(groups) {
			groups = append(groups, itemGroup{item: r.ItemID})
		}
		groups[j].reqs = append(groups[j].reqs, r)
		groups[j].at = append(groups[j].at, i)
	}
	return groups
}

func reserveArgs(reqs []Request) []any {
	args := make([]any, 0, 1+6*len(reqs))
	args = append(args, reqs[0].ItemID)
	for _, r := range reqs {
		admitted := "0"
		if r.Admitted {
			admitted = "1"
		}
		args = append(args, r.Now.UnixMilli(), r.UserID, r.Quantity, r.OrderID, r.IdempotencyKey, admitted)
	}
	return args
}

// answer maps the script's reply (see its header) to one outcome per
// request; a failed call fails every request in it.
func (s *Store) answer(reqs []Request, res []any, err error, out []Outcome) {
	if err == nil && len(res) != 1+3*len(reqs) {
		err = fmt.Errorf("script reply has %d values for %d requests", len(res), len(reqs))
	}
	var returns int64
	if err == nil {
		var ok bool
		if returns, ok = res[0].(int64); !ok {
			err = errors.New("script reply: returns is not an integer")
		}
	}
	for i, r := range reqs {
		if err != nil {
			out[i] = Outcome{Err: fmt.Errorf("reserve item %d: %w", r.ItemID, err)}
			continue
		}
		code, detail, left, perr := reply3(res[1+3*i : 4+3*i])
		if perr != nil {
			out[i] = Outcome{Err: fmt.Errorf("reserve item %d: %w", r.ItemID, perr)}
			continue
		}
		rsv, rerr := reserveResult(r, code, detail, left, returns)
		out[i] = Outcome{Reservation: rsv, Err: rerr}
	}
}

// reserveResult maps one request's return code to its result.
func reserveResult(r Request, code int64, detail string, left, returns int64) (Reservation, error) {
	switch code {
	case reserveOK, reserveReplay, reserveAlready:
		b, err := keyspace.ParseBuyer(detail)
		if err != nil {
			return Reservation{}, err
		}
		switch {
		case code == reserveAlready:
			return Reservation{}, &AlreadyPurchasedError{Existing: b}
		case code == reserveReplay && b.Quantity != r.Quantity:
			return Reservation{}, ErrIdempotencyConflict
		case code == reserveReplay:
			return Reservation{Buyer: b, StockLeft: -1, Replayed: true, Returns: returns}, nil
		}
		return Reservation{Buyer: b, StockLeft: left, Returns: returns}, nil
	case reserveNotWarmed:
		return Reservation{}, ErrNotWarmed
	case reserveNotStarted:
		return Reservation{}, ErrNotStarted
	case reserveEnded:
		return Reservation{}, ErrEnded
	case reserveOverLimit:
		return Reservation{}, ErrOverLimit
	case reserveSoldOut:
		return Reservation{}, &SoldOutError{Left: left, Returns: returns}
	case reserveNotAdmitted:
		return Reservation{}, ErrNotAdmitted
	}
	return Reservation{}, fmt.Errorf("reserve: unknown code %d", code)
}

func reply3(res []any) (code int64, detail string, n int64, err error) {
	if len(res) != 3 {
		return 0, "", 0, fmt.Errorf("script reply %v: want 3 values", res)
	}
	code, ok1 := res[0].(int64)
	detail, ok2 := res[1].(string)
	n, ok3 := res[2].(int64)
	if !ok1 || !ok2 || !ok3 {
		return 0, "", 0, fmt.Errorf("script reply %v: unexpected types", res)
	}
	return code, detail, n, nil
}
