// Package room is the virtual waiting room of a flash sale: shoppers queue
// for the right to buy, and the room admits them at a set rate, so a crowd at
// the opening meets a steady trickle of purchases instead of a stampede.
//
// Everyone who joins before the opening is in the pre-queue: each join draws
// a secret random number (crypto/rand) that orders the pre-queue, so at the
// opening it is a shuffle and arriving first, refreshing or rejoining gains
// nothing. Shoppers who join after the opening queue behind the pre-queue,
// first come, first served. A shopper's place is fixed once the sale opens.
//
// From the opening, the room admits shoppers from the head of the queue, one
// per 1/Rate seconds, without banking credits nobody could use. It never lets
// more admitted shoppers hold a chance to buy at once than the stock left can
// serve at the per-shopper limit: nobody is admitted to buy what does not
// exist. An admission holds its place for Window; once sold out, no one is
// admitted, and every shopper sees it.
//
// The state lives in Redis and changes only through lua/room.lua, one atomic
// script per call, so every server instance serves the same queue and no
// shopper is admitted twice. Its keys share the sale's hash tag (see
// keyspace.Item.RoomKeys), so it runs on Redis Cluster too.
package room

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/lua"
)

// Errors a room call can end with, besides Redis errors and ErrBadRules.
var (
	ErrNotWarmed = errors.New("room: sale not warmed in redis")
	ErrNoUser    = errors.New("room: no user id")
)

// Rules are how fast a room admits shoppers and how long each may buy.
type Rules struct {
	Rate   float64       // admissions per second
	Window time.Duration // time an admitted shopper has to buy
}

// ErrBadRules: rules a room cannot run by, from Validate and every call
// that takes Rules.
var ErrBadRules = errors.New("room: rate and window must be positive")

// Validate returns ErrBadRules unless Rate and Window are positive.
func (r Rules) Validate() error {
	if !(r.Rate > 0) || math.IsInf(r.Rate, 1) || r.Window <= 0 {
		return fmt.Errorf("%w: rate %v per second, window %v", ErrBadRules, r.Rate, r.Window)
	}
	return nil
}

// maxMicros keeps durations the script sees below 2^53, where its doubles
// stop being exact integers.
const maxMicros = 1 << 52

// interval is the µs between admissions, at least 1: a rate above a million
// a second admits one per µs.
func (r Rules) interval() int64 {
	return int64(math.Min(math.Max(math.Round(1e6/r.Rate), 1), maxMicros))
}

// window is the buying window in µs, rounded up (so at least 1 for a valid
// window, and without the overflow of adding 999ns first).
func (r Rules) window() int64 {
	return min(int64((r.Window-1)/time.Microsecond)+1, maxMicros)
}

// Store runs the room script against Redis.
type Store struct {
	rdb    redis.UniversalClient
	keys   keyspace.Space
	script *redis.Script
}

// New returns a store whose keys start with keys' prefix.
func New(rdb redis.UniversalClient, keys keyspace.Space) *Store {
	return &Store{rdb: rdb, keys: keys, script: redis.NewScript(lua.Room)}
}

// Join puts user in the sale's queue, unless already there, after admitting
// whoever is due at now. Joining before the opening draws the user's secret
// place in the shuffle; after it, the user queues last, unless the sale is
// sold out (Joined stays false). After the end nobody joins (Ended is set).
// It returns ErrBadRules, ErrNoUser, ErrNotWarmed or a Redis error.
func (s *Store) Join(ctx context.Context, itemID int64, user string, now time.Time, r Rules) (Standing, error) {
	if user == "" {
		return Standing{}, fmt.Errorf("join room of item %d: %w", itemID, ErrNoUser)
	}
	score, err := draw()
	if err != nil {
		return Standing{}, fmt.Errorf("join room of item %d: draw: %w", itemID, err)
	}
	return s.run(ctx, "join", itemID, user, score, now, r)
}

// Look returns user's standing in the sale's room (Joined false if user is
// not in it; "" looks at the room only), after admitting whoever is due at
// now. It returns ErrBadRules, ErrNotWarmed or a Redis error.
func (s *Store) Look(ctx context.Context, itemID int64, user string, now time.Time, r Rules) (Standing, error) {
	return s.run(ctx, "look", itemID, user, 0, now, r)
}

// Tick admits whoever is due at now and returns the room's standing. Joins
// and looks admit too; ticks keep the queue moving while nobody asks. It
// returns ErrBadRules, ErrNotWarmed or a Redis error.
func (s *Store) Tick(ctx context.Context, itemID int64, now time.Time, r Rules) (Standing, error) {
	return s.run(ctx, "tick", itemID, "", 0, now, r)
}

// scoreLimit is 2^53: scores below it are exact as Redis sorted-set scores
// (doubles), so no two draws collide by rounding.
const scoreLimit = 1 << 53

// draw returns a uniform random score in [0, 2^53): 64 random bits modulo a
// power of two that divides 2^64.
func draw() (int64, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return 0, err
	}
	return int64(binary.BigEndian.Uint64(b[:]) % scoreLimit), nil
}

// run runs the script and wraps any error with the operation and item.
func (s *Store) run(ctx context.Context, op string, itemID int64, user string, score int64, now time.Time, r Rules) (Standing, error) {
	st, err := s.eval(ctx, op, itemID, user, score, now, r)
	if err != nil {
		return Standing{}, fmt.Errorf("%s room of item %d: %w", op, itemID, err)
	}
	return st, nil
}

func (s *Store) eval(ctx context.Context, op string, itemID int64, user string, score int64, now time.Time, r Rules) (Standing, error) {
	if err := r.Validate(); err != nil {
		return Standing{}, err
	}
	keys := s.keys.Item(itemID).RoomKeys()
	res, err := s.script.Run(ctx, s.rdb, keys, now.UnixMicro(), op, user, score, r.interval(), r.window()).Slice()
	if err != nil {
		return Standing{}, err
	}
	return standing(res)
}

// Script return codes; see lua/room.lua.
const (
	codeOK         = 0
	codeNotWarmed  = 1
	codeEnded      = 2
	codeNotStarted = 3
	replyLen       = 11
)

// standing maps the script's reply to a Standing or an error: the one place
// that knows its layout and codes.
func standing(res []any) (Standing, error) {
	if len(res) != replyLen {
		return Standing{}, fmt.Errorf("room script reply %v", res)
	}
	var v [replyLen]int64
	for i, x := range res {
		n, ok := x.(int64)
		if !ok {
			return Standing{}, fmt.Errorf("room script reply %v", res)
		}
		v[i] = n
	}
	switch v[0] {
	case codeOK, codeEnded, codeNotStarted:
	case codeNotWarmed:
		return Standing{}, ErrNotWarmed
	default:
		return Standing{}, fmt.Errorf("room script code %d", v[0])
	}
	st := Standing{
		Opened: v[0] != codeNotStarted, Ended: v[0] == codeEnded,
		Admitted: v[1], Early: v[2], Late: v[3], StockLeft: v[4], Holding: v[5],
		NextAt: time.UnixMicro(v[6]).UTC(), Joined: v[7] != 0, Position: v[8], Paused: v[10] != 0,
	}
	if v[9] != 0 {
		st.AdmittedAt = time.UnixMicro(v[9]).UTC()
	}
	return st, nil
}

// Standing is what a room call saw, atomically: the room as a whole and,
// for Join and Look, one shopper's place in it.
type Standing struct {
	Opened    bool      // the room has opened: now >= the start, or a call has already seen it open
	Ended     bool      // the sale has ended: nobody joins or is admitted
	Paused    bool      // an admin paused the sale: shoppers keep their places, nobody is admitted
	Admitted  int64     // shoppers admitted from the head of the queue
	Early     int64     // shoppers who joined before the opening
	Late      int64     // shoppers who joined after it
	StockLeft int64     // units still for sale
	Holding   int64     // admitted shoppers whose window to buy is open
	NextAt    time.Time // when the next admission is due
	Joined    bool      // the shopper is in the queue
	// Position is the shopper's 0-based place in the queue, or -1 when it
	// is unknown: not joined, or before the opening, when the pre-queue has
	// not been shuffled yet.
	Position   int64
	AdmittedAt time.Time // zero if the shopper has not been admitted
}

// Queued is how many shoppers have joined, admitted or not.
func (s Standing) Queued() int64 { return s.Early + s.Late }

// SoldOut reports whether the sale has opened with no stock left, so the
// room admits nobody and refuses new joins.
func (s Standing) SoldOut() bool { return s.Opened && s.StockLeft <= 0 }

// IsAdmitted reports whether the shopper has been admitted (their window to
// buy may since have passed).
func (s Standing) IsAdmitted() bool { return !s.AdmittedAt.IsZero() }

// Ahead is how many shoppers before this one are not admitted yet: 0 once
// admitted, -1 if the position is unknown.
func (s Standing) Ahead() int64 {
	switch {
	case s.IsAdmitted():
		return 0
	case s.Position < 0:
		return -1
	}
	return max(s.Position-s.Admitted, 0)
}

// EstimatedWait is Ahead at rate admissions a second, rounded up to whole
// seconds: 0 once admitted, -1 if the position (or rate) is unknown. It
// ignores the stock cap, which can only make the wait longer, and a sell-out,
// which ends it.
func (s Standing) EstimatedWait(rate float64) time.Duration {
	ahead := s.Ahead()
	switch {
	case ahead < 0 || !(rate > 0):
		return -1
	case ahead == 0:
		return 0
	}
	secs := math.Ceil(float64(ahead) / rate)
	if secs >= math.MaxInt64/float64(time.Second) {
		return math.MaxInt64 // a wait beyond 292 years: as good as forever
	}
	return time.Duration(secs) * time.Second
}
