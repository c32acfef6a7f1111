package pow_test

import (
	"context"
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
		shopper      int64
		want         int
	}{
		{"a quiet network", pow.Load{}, pow.Load{}, 0, 15},
		{"a network at any rate stops at the ceiling", busy, pow.Load{}, 0, pow.DefaultCeiling},
		{"so does a /48", pow.Load{}, busy, 0, pow.DefaultCeiling},
		{"a /48 has sixteen /64s' allowance", pow.Load{}, pow.Load{Rate: 16 * 60, Failing: 16 * 10}, 0, 15},
		{"beyond it, a bit per doubling", pow.Load{}, pow.Load{Rate: 16*60 + 1}, 0, 16},
		{"the higher level applies", pow.Load{Rate: 61}, pow.Load{Rate: 4*16*60 + 1}, 0, 18},
		{"rate and failing shoppers add up", pow.Load{Rate: 121, Failing: 11}, pow.Load{}, 0, 18},
		{"a shopper's own failures go beyond the ceiling", busy, busy, 3, pow.DefaultCeiling + 3},
		{"to at most eight bits and the maximum", busy, busy, 100, pow.MaxDifficulty},
	} {
		if got := p.Difficulty(tc.narrow, tc.wide, tc.shopper); got != tc.want {
			t.Errorf("%s: Difficulty = %d, want %d", tc.name, got, tc.want)
		}
	}
	if d := pow.DefaultPolicy(22).Difficulty(busy, busy, 0); d != 22 {
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

var (
	farm   = pow.Network{Narrow: "203.0.113.0/24"}
	office = pow.Network{Narrow: "198.51.100.0/24"}
)

// TestPricerAdapts: with two servers' pricers sharing Redis (a single
// Redis and a cluster), a network asking at a high rate is asked more, up
// to the ceiling, and another network stays at the base; a new minute
// forgives nothing at once.
func TestPricerAdapts(t *testing.T) {
	for _, target := range testenv.RedisTargets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			clk := &clock{t: time.Date(2026, 11, 22, 10, 0, 5, 0, time.UTC)}
			ps := newPricers(t, target, 10, clk)
			var seq []int
			for i := range 1000 {
				seq = append(seq, ps.ask(i, "bot", farm, pow.Asked))
				ps.seen(i, farm) // and its join
			}
			// 2,000 requests a minute: the 30th challenge (the 59th request)
			// is at the base, the 31st (the 61st) one bit above, then one bit
			// per doubling up to the last (the 1,999th), under the ceiling.
			last := min(10+pow.Steps(1999, 60), pow.DefaultCeiling)
			if seq[0] != 10 || seq[29] != 10 || seq[30] != 11 || seq[999] != last {
				t.Fatalf("the farm's difficulties: first %d, 30th %d, 31st %d, last %d", seq[0], seq[29], seq[30], seq[999])
			}
			if d := ps.ask(0, "alice", office, pow.Asked); d != 10 {
				t.Fatalf("another network is asked %d, want the base 10", d)
			}
			clk.Add(time.Minute) // a new minute: the last one's rate still counts
			if d := ps.ask(1, "bot", farm, pow.Asked); d != 10+pow.Steps(2000, 60) {
				t.Fatalf("a minute on the farm is asked %d", d)
			}
			clk.Add(time.Minute) // two minutes without a request: back to the base
			if d := ps.ask(0, "bot", farm, pow.Asked); d != 10 {
				t.Fatalf("a quiet farm is asked %d, want the base", d)
			}
		})
	}
}

// TestPricerUnpaidRefusals: refused proofs that cost nothing, from a
// thousand accounts on one /24, raise each sender's own difficulty and no
// one else's: another shopper there is asked the base.
func TestPricerUnpaidRefusals(t *testing.T) {
	for _, target := range testenv.RedisTargets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			clk := &clock{t: time.Date(2026, 11, 22, 10, 0, 5, 0, time.UTC)}
			ps := newPricers(t, target, 10, clk)
			for i := range 3000 {
				ps.ask(i, "bot"+strconv.Itoa(i%1000), farm, pow.Unpaid)
			}
			if d := ps.ask(0, "bot0", farm, pow.Unpaid); d != 10+4 {
				t.Fatalf("a bot after four unpaid refusals is asked %d, want its own 4 bits more", d)
			}
			if d := ps.ask(0, "carol", farm, pow.Asked); d != 10 {
				t.Fatalf("carol on a network of 3,000 unpaid refusals is asked %d, want the base 10", d)
			}
		})
	}
}

// TestPricerPaidRefusals: proofs that cost work and were refused (spent
// before) count their distinct shoppers on the network: one shopper
// resending a spent proof a thousand times is one; past ten shoppers the
// network's price rises a bit per doubling, to the ceiling at most. Each
// shopper's own refusals are forgotten ten minutes after their last.
func TestPricerPaidRefusals(t *testing.T) {
	for _, target := range testenv.RedisTargets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			clk := &clock{t: time.Date(2026, 11, 22, 10, 0, 5, 0, time.UTC)}
			ps := newPricers(t, target, 15, clk)
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
}

// TestPricerPricesA48: a farm spreading its requests over 2,000 fresh /64s
// of one /48 is priced as one network, with the /48's sixteenfold
// allowance, and so is its neighbour in another /64 of that /48; a /64 of
// another /48 stays at the base. A busy /64 is priced by itself.
func TestPricerPricesA48(t *testing.T) {
	for _, target := range testenv.RedisTargets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			clk := &clock{t: time.Date(2026, 11, 22, 10, 0, 5, 0, time.UTC)}
			ps := newPricers(t, target, 10, clk)
			v6 := func(wide string, sub int) pow.Network {
				return pow.Network{Narrow: fmt.Sprintf("%s:%x::/64", wide, sub), Wide: wide + "::/48"}
			}
			var d int
			for i := range 2000 {
				d = ps.ask(i, "bot"+strconv.Itoa(i), v6("2001:db8:1", i), pow.Asked)
			}
			if want := 10 + pow.Steps(2000, 16*60); d != want {
				t.Fatalf("the 2,000th /64 of one /48 is asked %d, want %d", d, want)
			}
			if got := ps.ask(0, "alice", v6("2001:db8:1", 0xffff), pow.Asked); got != 12 {
				t.Fatalf("a fresh /64 of the farm's /48 is asked %d, want 12", got)
			}
			if got := ps.ask(0, "alice", v6("2001:db8:2", 0), pow.Asked); got != 10 {
				t.Fatalf("a /64 of another /48 is asked %d, want the base", got)
			}
			for i := range 200 {
				d = ps.ask(i, "bot", v6("2001:db8:3", 7), pow.Asked)
			}
			if want := 10 + pow.Steps(200, 60); d != want {
				t.Fatalf("a /64 asking 200 times is asked %d, want %d", d, want)
			}
		})
	}
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
