package pow_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/pow"
	"github.com/seckill/seckill/internal/testenv"
)

func TestSteps(t *testing.T) {
	for _, tc := range []struct {
		n, free int64
		want    int
	}{{0, 60, 0}, {60, 60, 0}, {61, 60, 1}, {120, 60, 1}, {121, 60, 2}, {240, 60, 2}, {241, 60, 3}, {20000, 60, 9}, {5, 0, 0}} {
		if got := pow.Steps(tc.n, tc.free); got != tc.want {
			t.Errorf("Steps(%d, %d) = %d, want %d", tc.n, tc.free, got, tc.want)
		}
	}
	p := pow.DefaultPolicy(15)
	busy := pow.Load{Rate: 1e9, Failing: 1e9}
	for _, tc := range []struct {
		name         string
		narrow, wide pow.Load
		own          pow.Own
		want         int
	}{
		{"a quiet network", pow.Load{}, pow.Load{}, pow.Own{}, 15},
		{"a network at any rate stops at the ceiling", busy, pow.Load{}, pow.Own{}, pow.DefaultCeiling},
		{"so does a /48", pow.Load{}, busy, pow.Own{}, pow.DefaultCeiling},
		{"a /48 has sixteen /64s' allowance", pow.Load{}, pow.Load{Rate: 16 * 60, Askers: 16 * 30, Failing: 16 * 10}, pow.Own{}, 15},
		{"beyond it, a bit per doubling", pow.Load{}, pow.Load{Rate: 16*60 + 1}, pow.Own{}, 16},
		{"the higher level applies", pow.Load{Rate: 61}, pow.Load{Rate: 4*16*60 + 1}, pow.Own{}, 18},
		{"rate and failing shoppers add up", pow.Load{Rate: 121, Failing: 11}, pow.Load{}, pow.Own{}, 18},
		{"askers beyond thirty a minute", pow.Load{Askers: 31}, pow.Load{}, pow.Own{}, 16},
		{"the larger of rate and askers, not both", pow.Load{Rate: 121, Askers: 61}, pow.Load{}, pow.Own{}, 17},
		{"a shopper's own failures go beyond the ceiling", busy, busy, pow.Own{Failures: 3}, pow.DefaultCeiling + 3},
		{"and their asks beyond ten a minute", pow.Load{}, pow.Load{}, pow.Own{Asks: 21, Failures: 1}, 18},
		{"to at most eight bits and the maximum", busy, busy, pow.Own{Asks: 1e9, Failures: 100}, pow.MaxDifficulty},
	} {
		if got := p.Difficulty(tc.narrow, tc.wide, tc.own); got != tc.want {
			t.Errorf("%s: Difficulty = %d, want %d", tc.name, got, tc.want)
		}
	}
	if d := pow.DefaultPolicy(22).Difficulty(busy, busy, pow.Own{}); d != 22 {
		t.Errorf("a base above the ceiling is asked %d for a busy network, want the base 22", d)
	}
}

// pricers are two servers' pricers sharing one Redis under a fresh prefix,
// at base difficulty base, on clk.
type pricers struct {
	t       *testing.T
	servers []*pow.Pricer
	rdb     redis.UniversalClient
	keys    keyspace.Space
}

func newPricers(t *testing.T, target testenv.Target, base int, clk *clock) pricers {
	t.Helper()
	rdb, prefix := testenv.RedisOn(t, target.Redis)
	p, keys := pow.DefaultPolicy(base), keyspace.New(prefix)
	return pricers{t: t, servers: []*pow.Pricer{pow.NewPricer(rdb, keys, p, clk.Now), pow.NewPricer(rdb, keys, p, clk.Now)}, rdb: rdb, keys: keys}
}

// ask asks server i%2 for user's difficulty on n, counting o.
func (ps pricers) ask(i int, user string, n pow.Network, o pow.Outcome) int {
	ps.t.Helper()
	d, err := ps.servers[i%2].Ask(context.Background(), user, n, o)
	if err != nil {
		ps.t.Fatal(err)
	}
	return d
}

// seen counts a passed proof from n on server i%2.
func (ps pricers) seen(i int, n pow.Network) {
	ps.t.Helper()
	if err := ps.servers[i%2].Seen(context.Background(), n); err != nil {
		ps.t.Fatal(err)
	}
}

// onEachRedis runs test on a single Redis and on a cluster, in parallel,
// with two servers' pricers at base difficulty on a clock of their own.
func onEachRedis(t *testing.T, base int, test func(t *testing.T, ps pricers, clk *clock)) {
	for _, target := range testenv.RedisTargets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			clk := &clock{t: time.Date(2026, 11, 22, 10, 0, 5, 0, time.UTC)}
			test(t, newPricers(t, target, base, clk), clk)
		})
	}
}

var (
	farm   = pow.Network{Narrow: "203.0.113.0/24"}
	office = pow.Network{Narrow: "198.51.100.0/24"}
)

// TestPricerAdapts: with two servers' pricers sharing Redis (a single
// Redis and a cluster), a network whose proofs are accepted at a high rate
// is asked a bit more per doubling, and another network stays at the base;
// a new minute forgives nothing at once.
func TestPricerAdapts(t *testing.T) {
	onEachRedis(t, 10, func(t *testing.T, ps pricers, clk *clock) {
		asked := func(i int, n pow.Network) int { return ps.ask(i, "shopper"+strconv.Itoa(i), n, pow.Asked) }
		for i := range 2000 {
			ps.seen(i, farm)
			if i == 59 || i == 60 || i == 120 {
				if d, want := asked(i, farm), 10+pow.Steps(int64(i+1), 60); d != want {
					t.Fatalf("after %d accepted proofs a shopper of the farm is asked %d, want %d", i+1, d, want)
				}
			}
		}
		busy := 10 + pow.Steps(2000, 60)
		if d := asked(0, farm); d != busy {
			t.Fatalf("after 2,000 accepted proofs the farm is asked %d, want %d", d, busy)
		}
		if d := asked(0, office); d != 10 {
			t.Fatalf("another network is asked %d, want the base 10", d)
		}
		clk.Add(time.Minute) // a new minute: the last one's rate still counts
		if d := asked(1, farm); d != busy {
			t.Fatalf("a minute on the farm is asked %d", d)
		}
		clk.Add(time.Minute) // two minutes without a request: back to the base
		if d := asked(2, farm); d != 10 {
			t.Fatalf("a quiet farm is asked %d, want the base", d)
		}
	})
}

// TestPricerFreeRequests: requests that cost no work (challenges asked for,
// proofs missing or refused unpaid) raise a network's price only by the
// accounts they bring. Two accounts sending 1,200 each in a minute raise
// their own difficulties and no one else's; a hundred accounts asking once
// each are a hundred shoppers, two doublings beyond thirty.
func TestPricerFreeRequests(t *testing.T) {
	onEachRedis(t, 10, func(t *testing.T, ps pricers, clk *clock) {
		for i := range 2400 {
			ps.ask(i, "bot"+strconv.Itoa(i%2), farm, pow.Asked)
		}
		if d := ps.ask(0, "carol", farm, pow.Asked); d != 10 {
			t.Fatalf("carol on a network of two accounts asking 2,400 times is asked %d, want the base 10", d)
		}
		if d := ps.ask(0, "bot0", farm, pow.Asked); d != 10+pow.Steps(1201, 10) {
			t.Fatalf("a bot that asked 1,200 times is asked %d, want its own %d bits more", d, pow.Steps(1201, 10))
		}
		clk.Add(time.Minute) // the last minute's asks still count on the bot, not the network
		if d := ps.ask(1, "carol", farm, pow.Asked); d != 10 {
			t.Fatalf("carol a minute on is asked %d, want the base", d)
		}
		for i := range 97 {
			ps.ask(i, "account"+strconv.Itoa(i), office, pow.Asked)
		}
		if d := ps.ask(0, "dave", office, pow.Asked); d != 10+pow.Steps(98, 30) {
			t.Fatalf("the 98th shopper asking on one network is asked %d, want %d", d, 10+pow.Steps(98, 30))
		}
	})
}

// TestPricerUnpaidRefusals: refused proofs that cost nothing, 3,000 from
// twenty accounts on one /24, raise each sender's own difficulty and no
// one else's: another shopper there is asked the base.
func TestPricerUnpaidRefusals(t *testing.T) {
	onEachRedis(t, 10, func(t *testing.T, ps pricers, clk *clock) {
		for i := range 3000 {
			ps.ask(i, "bot"+strconv.Itoa(i%20), farm, pow.Unpaid)
		}
		if d := ps.ask(0, "bot0", farm, pow.Unpaid); d != 10+8 {
			t.Fatalf("a bot after 151 unpaid refusals is asked %d, want its own 8 bits more", d)
		}
		if d := ps.ask(0, "carol", farm, pow.Asked); d != 10 {
			t.Fatalf("carol on a network of 3,000 unpaid refusals is asked %d, want the base 10", d)
		}
	})
}

// TestPricerPaidRefusals: proofs that cost work and were refused (spent
// before) count their distinct shoppers on the network: one shopper
// resending a spent proof a thousand times is one; past ten shoppers the
// network's price rises a bit per doubling, to the ceiling at most. Each
// shopper's own refusals are forgotten ten minutes after their last.
func TestPricerPaidRefusals(t *testing.T) {
	onEachRedis(t, 15, func(t *testing.T, ps pricers, clk *clock) {
		if d := ps.ask(0, "bob", office, pow.Paid); d != 16 {
			t.Fatalf("after one refusal bob is asked %d, want 16", d)
		}
		for i := range 1000 {
			ps.ask(i, "mallory", office, pow.Paid)
		}
		if d := ps.ask(0, "carol", office, pow.Asked); d != 15 {
			t.Fatalf("carol on a network with two failing shoppers is asked %d, want the base", d)
		}
		for i := range 9 { // eleven failing shoppers
			ps.ask(i, "shopper"+strconv.Itoa(i), office, pow.Paid)
		}
		if d := ps.ask(0, "carol", office, pow.Asked); d != 16 {
			t.Fatalf("carol on a network with 11 failing shoppers is asked %d, want 16", d)
		}
		for i := 9; i < 1000; i++ { // 1,002: 7 doublings, 22 bits, capped at the ceiling
			ps.ask(i, "shopper"+strconv.Itoa(i), office, pow.Paid)
		}
		if d := ps.ask(0, "carol", office, pow.Asked); d != pow.DefaultCeiling {
			t.Fatalf("carol on a network with 1,002 failing shoppers is asked %d, want the ceiling %d", d, pow.DefaultCeiling)
		}
		ttl := ps.rdb.PTTL(context.Background(), ps.keys.PowShopperFailures("bob")).Val()
		if ttl <= 9*time.Minute || ttl > 10*time.Minute {
			t.Fatalf("bob's refusals are kept %v, want 10 minutes", ttl)
		}
	})
}

// TestPricerFailingShoppersAgeOut: a network's failing shoppers are
// forgotten after ten to twenty minutes even while other failures keep
// coming: eleven fail at once, one more fails every minute, and twenty
// minutes on only the last twenty minutes' few count.
func TestPricerFailingShoppersAgeOut(t *testing.T) {
	onEachRedis(t, 15, func(t *testing.T, ps pricers, clk *clock) {
		for i := range 11 {
			ps.ask(i, "early"+strconv.Itoa(i), office, pow.Paid)
		}
		if d := ps.ask(0, "carol", office, pow.Asked); d != 16 {
			t.Fatalf("carol on a network with 11 failing shoppers is asked %d, want 16", d)
		}
		for i := range 20 {
			clk.Add(time.Minute)
			ps.ask(i, "later"+strconv.Itoa(i), office, pow.Paid)
		}
		if d := ps.ask(0, "carol", office, pow.Asked); d != 15 {
			t.Fatalf("twenty minutes on, with a failure a minute since, carol is asked %d, want the base", d)
		}
	})
}

// TestPricerReportsEveryError: a read of a key not written yet (a routine
// redis.Nil) does not hide an error of a later command of the pipeline
// (here a key of the wrong type, as a failing cluster node would answer):
// the pricer reports it, with the base, for the server to log and ask the
// base.
func TestPricerReportsEveryError(t *testing.T) {
	onEachRedis(t, 15, func(t *testing.T, ps pricers, clk *clock) {
		window := clk.Now().Unix() / int64(pow.DefaultPolicy(15).FailureMemory/time.Second)
		if err := ps.rdb.Set(context.Background(), ps.keys.PowFailingShoppers(office.Narrow, window), "not a HyperLogLog", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
		d, err := ps.servers[0].Ask(context.Background(), "carol", office, pow.Asked)
		if err == nil || errors.Is(err, redis.Nil) || d != 15 {
			t.Fatalf("Ask with a failing command after a missing key: %d, %v; want the base 15 and the error", d, err)
		}
	})
}

// TestPricerPricesA48: a farm spreading its requests over 2,000 fresh /64s
// of one /48 is priced as one network, with the /48's sixteenfold
// allowance of distinct /64s, and so is its neighbour in another /64 of
// that /48; a /64 of another /48 stays at the base. A busy /64 is priced
// by itself.
func TestPricerPricesA48(t *testing.T) {
	onEachRedis(t, 10, func(t *testing.T, ps pricers, clk *clock) {
		var d int
		for i := range 2000 {
			d = ps.ask(i, "bot"+strconv.Itoa(i), v6("2001:db8:1", i), pow.Asked)
		}
		if want := 10 + pow.Steps(2000, 16*30); d != want {
			t.Fatalf("the 2,000th /64 of one /48 is asked %d, want %d", d, want)
		}
		if got, want := ps.ask(0, "alice", v6("2001:db8:1", 0xffff), pow.Asked), 10+pow.Steps(2001, 16*30); got != want {
			t.Fatalf("a fresh /64 of the farm's /48 is asked %d, want %d", got, want)
		}
		if got := ps.ask(0, "alice", v6("2001:db8:2", 0), pow.Asked); got != 10 {
			t.Fatalf("a /64 of another /48 is asked %d, want the base", got)
		}
		for i := range 200 {
			d = ps.ask(i, "bot"+strconv.Itoa(i), v6("2001:db8:3", 7), pow.Asked)
		}
		if want := 10 + pow.Steps(200, 30); d != want {
			t.Fatalf("200 shoppers of one /64 are asked %d, want %d", d, want)
		}
	})
}

// TestPricerOne64CannotRaiseIts48: one /64's accounts alone, however many
// and whatever they do (2,000 accepted proofs, 500 shoppers asking, 500
// with paid failures), price that /64 and leave the rest of its /48 at the
// base: the /48 counts /64s.
func TestPricerOne64CannotRaiseIts48(t *testing.T) {
	onEachRedis(t, 10, func(t *testing.T, ps pricers, clk *clock) {
		busy := v6("2001:db8:1", 7)
		for i := range 2000 {
			ps.seen(i, busy)
		}
		for i := range 500 {
			ps.ask(i, "bot"+strconv.Itoa(i), busy, pow.Asked)
			ps.ask(i, "bot"+strconv.Itoa(i), busy, pow.Paid)
		}
		if d := ps.ask(0, "eve", busy, pow.Asked); d != pow.DefaultCeiling {
			t.Fatalf("the busy /64 is asked %d, want the ceiling", d)
		}
		if d := ps.ask(1, "alice", v6("2001:db8:1", 8), pow.Asked); d != 10 {
			t.Fatalf("another /64 of the busy /64's /48 is asked %d, want the base 10", d)
		}
	})
}

// v6 is the /64 numbered sub of the /48 wide, priced at both.
func v6(wide string, sub int) pow.Network {
	return pow.Network{Narrow: fmt.Sprintf("%s:%x::/64", wide, sub), Wide: wide + "::/48"}
}

// TestOutcomeOf: only a proof spent before, which passed every check and so
// cost its shopper a solve, is a paid refusal; a missing, expired or other
// network's proof is a request for a challenge; the rest cost nothing.
func TestOutcomeOf(t *testing.T) {
	for err, want := range map[error]pow.Outcome{
		pow.ErrSpent: pow.Paid, fmt.Errorf("spend: %w", pow.ErrSpent): pow.Paid,
		pow.ErrMissing: pow.Asked, pow.ErrExpired: pow.Asked, pow.ErrOtherNetwork: pow.Asked,
		pow.ErrMalformed: pow.Unpaid, pow.ErrForged: pow.Unpaid, pow.ErrNotYours: pow.Unpaid, pow.ErrTooWeak: pow.Unpaid,
	} {
		if got := pow.OutcomeOf(err); got != want {
			t.Errorf("OutcomeOf(%v) = %d, want %d", err, got, want)
		}
	}
}
