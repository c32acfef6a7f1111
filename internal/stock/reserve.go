package stock

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
)

// Request asks for a reservation.
type Request struct {
	ItemID         int64
	VariantID      int64 // 0: the sale's only variant
	UserID         string
	Quantity       int
	OrderID        string // used if the reservation succeeds
	IdempotencyKey string // "" for none
	Now            time.Time
	// Admitted says the request carries the waiting room's admission for
	// this shopper and sale; a sale with a waiting room refuses others.
	Admitted bool
	// ClientKey names the client (its IP, or its /64) for the purchase rate
	// limits the script checks (see Store.SetLimits); "" when the server
	// checked them before the script.
	ClientKey string
}

// Limits are the purchase rate limits the reserve script checks: a
// request per Every sustained, Burst at once, per shopper and per client,
// within each sale. A zero Every is no limit. Checking them in the script
// saves the purchase two round trips to Redis.
type Limits struct {
	ShopperEvery, ClientEvery time.Duration
	ShopperBurst, ClientBurst int
}

// SetLimits sets the limits every later reservation is checked against.
func (s *Store) SetLimits(l Limits) { s.limits = l }

// Reservation is a successful (or replayed) reservation.
type Reservation struct {
	keyspace.Buyer
	StockLeft int64 // of the variant; -1 when replayed
	SaleLeft  int64 // of the whole sale; -1 when replayed
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
// ErrVariantNotFound, ErrVariantRequired, ErrNotStarted, ErrEnded,
// ErrNotAdmitted, ErrOverLimit, ErrInvalidQuantity, ErrInvalidArgument,
// *AlreadyPurchasedError, *SoldOutError or ErrIdempotencyConflict when no
// stock was taken, ErrReplicationTimeout when the reservation (new or
// replayed) did not reach enough replicas in time, or a Redis error.
func (s *Store) Reserve(ctx context.Context, r Request) (Reservation, error) {
	o := s.batcher.Do(ctx, r)
	return o.Reservation, o.Err
}

// ReserveBatch reserves for every request, in order, with one script call
// per sale and one round trip in all, and writes each answer to out. The
// answers are those of running the requests one after another. When
// acknowledgements need replicas (SetDurability), each sale's call is
// followed by a WAIT on the same connection, and an answer that would tell
// a shopper an order exists is ErrReplicationTimeout if too few replicas
// had it in time.
func (s *Store) ReserveBatch(ctx context.Context, reqs []Request, out []Outcome) {
	if d := s.Durability(); d.MinReplicas > 0 {
		s.reserveReplicated(ctx, reqs, out, d)
		return
	}
	first := reqs[0].ItemID
	for _, r := range reqs[1:] {
		if r.ItemID != first {
			s.reservePipelined(ctx, reqs, out)
			return
		}
	}
	k := s.keys.Item(first)
	res, err := s.reserve.Run(ctx, s.rdb, reserveKeys(k, reqs), s.reserveArgs(reqs)...).Slice()
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
			cmds[i] = s.reserve.EvalSha(ctx, p, reserveKeys(s.keys.Item(g.item), g.reqs), s.reserveArgs(g.reqs)...)
		}
		return nil
	})
	for i, g := range groups {
		res, err := cmds[i].Slice()
		if err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
			res, err = s.reserve.Run(ctx, s.rdb, reserveKeys(s.keys.Item(g.item), g.reqs), s.reserveArgs(g.reqs)...).Slice()
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

func reserveKeys(k keyspace.Item, reqs []Request) []string {
	users, clients := make([]string, len(reqs)), make([]string, len(reqs))
	for i, r := range reqs {
		users[i], clients[i] = r.UserID, r.ClientKey
	}
	return k.ReserveKeys(users, clients)
}

func (s *Store) reserveArgs(reqs []Request) []any {
	l := s.limits
	args := make([]any, 0, 5+8*len(reqs))
	args = append(args, reqs[0].ItemID, l.ShopperEvery.Microseconds(), l.ShopperBurst, l.ClientEvery.Microseconds(), l.ClientBurst)
	for _, r := range reqs {
		admitted := "0"
		if r.Admitted {
			admitted = "1"
		}
		variant := ""
		if r.VariantID != 0 {
			variant = strconv.FormatInt(r.VariantID, 10)
		}
		args = append(args, r.Now.UnixMilli(), r.UserID, r.Quantity, r.OrderID, r.IdempotencyKey, admitted, variant, r.ClientKey)
	}
	return args
}

// answer maps the script's reply (see its header) to one outcome per
// request; a failed call fails every request in it.
func (s *Store) answer(reqs []Request, res []any, err error, out []Outcome) {
	if err == nil && len(res) != 1+4*len(reqs) {
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
		rep, perr := parseReply(res[1+4*i : 5+4*i])
		if perr != nil {
			out[i] = Outcome{Err: fmt.Errorf("reserve item %d: %w", r.ItemID, perr)}
			continue
		}
		rep.returns = returns
		rsv, rerr := reserveResult(r, rep)
		out[i] = Outcome{Reservation: rsv, Err: rerr}
	}
}

// reply is the script's answer to one request.
type reply struct {
	code, left, saleLeft, returns int64
	detail                        string
}

// reserveResult maps one request's return code to its result.
func reserveResult(r Request, rep reply) (Reservation, error) {
	switch rep.code {
	case reserveOK, reserveReplay, reserveAlready:
		b, err := keyspace.ParseBuyer(rep.detail)
		if err != nil {
			return Reservation{}, err
		}
		switch {
		case rep.code == reserveAlready:
			return Reservation{}, &AlreadyPurchasedError{Existing: b}
		case rep.code == reserveReplay && (b.Quantity != r.Quantity || otherVariant(r, b)):
			return Reservation{}, ErrIdempotencyConflict
		case rep.code == reserveReplay:
			return Reservation{Buyer: b, StockLeft: -1, SaleLeft: -1, Replayed: true, Returns: rep.returns}, nil
		}
		return Reservation{Buyer: b, StockLeft: rep.left, SaleLeft: rep.saleLeft, Returns: rep.returns}, nil
	case reserveRateLimited:
		us, err := strconv.ParseInt(rep.detail, 10, 64)
		if err != nil {
			return Reservation{}, fmt.Errorf("reserve: rate limit wait %q: %w", rep.detail, err)
		}
		return Reservation{}, &RateLimitedError{Wait: time.Duration(us) * time.Microsecond}
	case reserveSoldOut:
		return Reservation{}, &SoldOutError{Left: rep.left, SaleLeft: rep.saleLeft, Returns: rep.returns,
			Available: parseIDs(rep.detail)}
	}
	if rep.code == reserveBadArgument {
		return Reservation{}, fmt.Errorf("%w: %s", ErrInvalidArgument, rep.detail)
	}
	if err, ok := refusals[rep.code]; ok {
		return Reservation{}, err
	}
	return Reservation{}, fmt.Errorf("reserve: unknown code %d", rep.code)
}

// otherVariant says whether r names a variant other than the one the
// reservation b replays: the key was used for a different request. A
// request naming none means the sale's only variant, and a buyer value
// stored before sales had variants names none.
func otherVariant(r Request, b keyspace.Buyer) bool {
	return r.VariantID != 0 && b.VariantID != 0 && r.VariantID != b.VariantID
}

// refusals are the codes that carry nothing but their error.
var refusals = map[int64]error{
	reserveNotWarmed:   ErrNotWarmed,
	reserveNotStarted:  ErrNotStarted,
	reserveEnded:       ErrEnded,
	reserveOverLimit:   ErrOverLimit,
	reserveNotAdmitted: ErrNotAdmitted,
	reserveNoVariant:   ErrVariantNotFound,
	reserveVariantNeed: ErrVariantRequired,
	reserveBadQuantity: ErrInvalidQuantity,
	reservePaused:      ErrPaused,
	reserveNoOffer:     ErrNoOffer,
}

// parseIDs reads a comma-separated list of ids, in ascending order (the
// script writes them in the hash's order); the script writes the list, so
// nothing else can appear in it.
func parseIDs(s string) []int64 {
	ids := []int64{}
	for _, f := range strings.Split(s, ",") {
		if id, err := strconv.ParseInt(f, 10, 64); err == nil {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

func parseReply(res []any) (reply, error) {
	if len(res) != 4 {
		return reply{}, fmt.Errorf("script reply %v: want 4 values", res)
	}
	code, ok1 := res[0].(int64)
	detail, ok2 := res[1].(string)
	left, ok3 := res[2].(int64)
	saleLeft, ok4 := res[3].(int64)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return reply{}, fmt.Errorf("script reply %v: unexpected types", res)
	}
	return reply{code: code, detail: detail, left: left, saleLeft: saleLeft}, nil
}
