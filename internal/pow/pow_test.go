package pow_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/pow"
	"github.com/seckill/seckill/internal/testenv"
)

var secret = []byte("pow-test-secret-0123456789abcdef0123")

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }

// leadingZeros counts the leading zero bits of SHA-256(challenge ":" x)
// bit by bit, as the issue states the rule: an independent check of
// pow.LeadingZeros.
func leadingZeros(challenge, x string) int {
	sum := sha256.Sum256([]byte(challenge + ":" + x))
	n := 0
	for _, b := range sum {
		for bit := 7; bit >= 0; bit-- {
			if b>>bit&1 != 0 {
				return n
			}
			n++
		}
	}
	return n
}

func TestLeadingZerosIsTheStatedRule(t *testing.T) {
	for _, c := range []string{"a", "1.x.y", strings.Repeat("z", 100)} {
		for _, x := range []string{"0", "1", "42", "99999", "18446744073709551615"} {
			if got, want := pow.LeadingZeros(c, x), leadingZeros(c, x); got != want {
				t.Errorf("LeadingZeros(%q, %q) = %d, want %d", c, x, got, want)
			}
		}
	}
	// A solution found by the package's solver meets the rule.
	if x := pow.Solve("c", 12); leadingZeros("c", x) < 12 {
		t.Errorf("Solve gave %s with %d zero bits", x, leadingZeros("c", x))
	}
}

func TestCheck(t *testing.T) {
	clk := &clock{t: time.Unix(1795000000, 0)}
	is := pow.NewIssuer(secret, time.Minute, clk.Now)
	ch := is.Issue("alice", 7, 10)
	x := pow.Solve(ch, 10)
	if c, err := is.Check(ch+":"+x, "alice", 7); err != nil || c.Difficulty != 10 || c.ItemID != 7 || c.UserID != "alice" {
		t.Fatalf("a solved challenge: %+v, %v", c, err)
	}
	wrong := "0"
	for leadingZeros(ch, wrong) >= 10 {
		wrong += "1"
	}
	other := pow.NewIssuer([]byte("another-secret-0123456789abcdef0123"), time.Minute, clk.Now)
	// A challenge claiming an easier difficulty than it was issued at.
	parts := strings.Split(ch, ".")
	parts[4] = "0"
	easier := strings.Join(parts, ".")
	for _, tc := range []struct {
		name, proof, user string
		item              int64
		want              error
	}{
		{"missing", "", "alice", 7, pow.ErrMissing},
		{"no solution", ch, "alice", 7, pow.ErrMalformed},
		{"not decimal", ch + ":12a", "alice", 7, pow.ErrMalformed},
		{"unsolved", ch + ":" + wrong, "alice", 7, pow.ErrTooWeak},
		{"someone else's", ch + ":" + x, "bob", 7, pow.ErrNotYours},
		{"another sale's", ch + ":" + x, "alice", 8, pow.ErrNotYours},
		{"another server's secret", other.Issue("alice", 7, 0) + ":0", "alice", 7, pow.ErrForged},
		{"difficulty lowered", easier + ":0", "alice", 7, pow.ErrForged},
		{"garbage", "hello:1", "alice", 7, pow.ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := is.Check(tc.proof, tc.user, tc.item); !errors.Is(err, tc.want) {
				t.Fatalf("Check = %v, want %v", err, tc.want)
			}
		})
	}
	clk.Add(time.Minute)
	if _, err := is.Check(ch+":"+x, "alice", 7); !errors.Is(err, pow.ErrExpired) {
		t.Fatalf("a minute later: %v, want expired", err)
	}
}

// TestSpendOnce: one solution buys one action, across servers sharing
// Redis, even when they spend it at the same moment.
func TestSpendOnce(t *testing.T) {
	rdb, prefix := testenv.Redis(t)
	is := pow.NewIssuer(secret, time.Minute, time.Now)
	ch := is.Issue("alice", 7, 4)
	c, err := is.Check(ch+":"+pow.Solve(ch, 4), "alice", 7)
	if err != nil {
		t.Fatal(err)
	}
	ledgers := []*pow.Ledger{pow.NewLedger(rdb, keyspace.New(prefix), time.Now), pow.NewLedger(rdb, keyspace.New(prefix), time.Now)}
	var wg sync.WaitGroup
	var mu sync.Mutex
	spent := 0
	for i := range 20 {
		wg.Go(func() {
			err := ledgers[i%2].Spend(context.Background(), c)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				spent++
			case !errors.Is(err, pow.ErrSpent):
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if spent != 1 {
		t.Fatalf("spent %d times, want once", spent)
	}
	ttl := rdb.PTTL(context.Background(), keyspace.New(prefix).Item(7).SpentChallenge(c.ID)).Val()
	if ttl <= 0 || ttl > time.Minute {
		t.Fatalf("the spent mark lives %v; want until the challenge expires", ttl)
	}
}

// BenchmarkCheck is the server's cost of checking one proof (MAC, parse,
// one hash), the price of verifying against the client's of solving.
func BenchmarkCheck(b *testing.B) {
	is := pow.NewIssuer(secret, time.Minute, time.Now)
	ch := is.Issue("alice", 7, 12)
	proof := ch + ":" + pow.Solve(ch, 12)
	for b.Loop() {
		if _, err := is.Check(proof, "alice", 7); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckAndSpend is the whole verify a guarded request pays: the
// check, then the spend in Redis (one SET NX round trip).
func BenchmarkCheckAndSpend(b *testing.B) {
	rdb, prefix := testenv.Redis(b)
	is := pow.NewIssuer(secret, time.Minute, time.Now)
	ledger := pow.NewLedger(rdb, keyspace.New(prefix), time.Now)
	proofs := make([]string, 1000)
	for i := range proofs {
		ch := is.Issue("alice", 7, 4)
		proofs[i] = ch + ":" + pow.Solve(ch, 4)
	}
	ctx := context.Background()
	i := 0
	for b.Loop() {
		c, err := is.Check(proofs[i%len(proofs)], "alice", 7)
		if err != nil {
			b.Fatal(err)
		}
		// Spent once each: later rounds measure a refused spend, the same
		// round trip.
		if err := ledger.Spend(ctx, c); err != nil && !errors.Is(err, pow.ErrSpent) {
			b.Fatal(err)
		}
		i++
	}
}
