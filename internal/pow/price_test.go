package pow_test

import (
	"context"
	"testing"
	"time"

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
	p := pow.DefaultPolicy(20)
	if d := p.Difficulty(1e9, 100, 1e9); d != pow.MaxDifficulty {
		t.Errorf("a network at any rate is asked %d bits, want the cap %d", d, pow.MaxDifficulty)
	}
}

// TestPricerAdapts: with two servers' pricers sharing Redis (a single
// Redis and a cluster), a network asking at a high rate is asked more and
// another network stays at the base; refused proofs raise the difficulty
// of the shopper and, past a few, of their network; a new minute forgives
// nothing at once.
func TestPricerAdapts(t *testing.T) {
	for _, target := range testenv.RedisTargets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			rdb, prefix := testenv.RedisOn(t, target.Redis)
			clk := &clock{t: time.Date(2026, 11, 22, 10, 0, 5, 0, time.UTC)}
			p := pow.DefaultPolicy(10)
			servers := []*pow.Pricer{pow.NewPricer(rdb, keyspace.New(prefix), p, clk.Now), pow.NewPricer(rdb, keyspace.New(prefix), p, clk.Now)}
			ctx := context.Background()
			ask := func(i int, user, network string, failed bool) int {
				t.Helper()
				d, err := servers[i%2].Ask(ctx, user, network, failed)
				if err != nil {
					t.Fatal(err)
				}
				return d
			}
			const farm, office = "203.0.113.0/24", "198.51.100.0/24"
			var seq []int
			for i := range 1000 {
				seq = append(seq, ask(i, "bot", farm, false))
				if err := servers[i%2].Seen(ctx, farm); err != nil { // and its join
					t.Fatal(err)
				}
			}
			// 2,000 requests a minute: the 30th challenge (the 59th request)
			// is at the base, the 31st (the 61st) one bit above, then one bit
			// per doubling up to the last (the 1,999th).
			if seq[0] != 10 || seq[29] != 10 || seq[30] != 11 || seq[999] != 10+pow.Steps(1999, 60) {
				t.Fatalf("the farm's difficulties: first %d, 30th %d, 31st %d, last %d", seq[0], seq[29], seq[30], seq[999])
			}
			if d := ask(0, "alice", office, false); d != 10 {
				t.Fatalf("another network is asked %d, want the base 10", d)
			}
			clk.Add(time.Minute) // a new minute: the last one's rate still counts
			if d := ask(1, "bot", farm, false); d != 10+pow.Steps(2000, 60) {
				t.Fatalf("a minute on the farm is asked %d", d)
			}
			clk.Add(time.Minute) // two minutes without a request: back to the base
			if d := ask(0, "bot", farm, false); d != 10 {
				t.Fatalf("a quiet farm is asked %d, want the base", d)
			}

			// Refusals: each raises the shopper's difficulty by one bit; the
			// network's rises once it has sent more than ten.
			if d := ask(0, "bob", office, true); d != 11 {
				t.Fatalf("after one refusal bob is asked %d, want 11", d)
			}
			if d := ask(1, "bob", office, true); d != 12 {
				t.Fatalf("after two refusals bob is asked %d, want 12", d)
			}
			if d := ask(0, "carol", office, false); d != 10 {
				t.Fatalf("carol on bob's network is asked %d, want the base", d)
			}
			for i := range 9 {
				ask(i, "mallory", office, true)
			}
			if d := ask(0, "carol", office, false); d != 11 {
				t.Fatalf("carol on a network with 11 refusals is asked %d, want 11", d)
			}
			// They are forgotten once ten minutes pass without another.
			ttl := rdb.PTTL(ctx, keyspace.New(prefix).PowShopperFailures("bob")).Val()
			if ttl <= 9*time.Minute || ttl > 10*time.Minute {
				t.Fatalf("bob's refusals are kept %v, want 10 minutes", ttl)
			}
		})
	}
}
