package pow_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
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

// Two client networks, as httpapi keys them.
const netA, netB = "203.0.113.0/24", "2001:db8:1:2::/64"

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
	ch := is.Issue("alice", netA, 7, 10)
	x := pow.Solve(ch, 10)
	if c, err := is.Check(ch+":"+x, "alice", netA, 7); err != nil || c.Difficulty != 10 || c.ItemID != 7 || c.UserID != "alice" ||
		c.Network != netA {
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
	// A challenge moved to another network.
	parts = strings.Split(ch, ".")
	parts[6] = base64.RawURLEncoding.EncodeToString([]byte(netB))
	moved := strings.Join(parts, ".")
	for _, tc := range []struct {
		name, proof, user, network string
		item                       int64
		want                       error
	}{
		{"missing", "", "alice", netA, 7, pow.ErrMissing},
		{"no solution", ch, "alice", netA, 7, pow.ErrMalformed},
		{"not decimal", ch + ":12a", "alice", netA, 7, pow.ErrMalformed},
		{"unsolved", ch + ":" + wrong, "alice", netA, 7, pow.ErrTooWeak},
		{"someone else's", ch + ":" + x, "bob", netA, 7, pow.ErrNotYours},
		{"another sale's", ch + ":" + x, "alice", netA, 8, pow.ErrNotYours},
		{"spent from another network", ch + ":" + x, "alice", netB, 7, pow.ErrOtherNetwork},
		{"another network's, solved", moved + ":" + pow.Solve(moved, 10), "alice", netB, 7, pow.ErrForged},
		{"another server's secret", other.Issue("alice", netA, 7, 0) + ":0", "alice", netA, 7, pow.ErrForged},
		{"difficulty lowered", easier + ":0", "alice", netA, 7, pow.ErrForged},
		{"garbage", "hello:1", "alice", netA, 7, pow.ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := is.Check(tc.proof, tc.user, tc.network, tc.item); !errors.Is(err, tc.want) {
				t.Fatalf("Check = %v, want %v", err, tc.want)
			}
		})
	}
	clk.Add(time.Minute)
	if _, err := is.Check(ch+":"+x, "alice", netA, 7); !errors.Is(err, pow.ErrExpired) {
		t.Fatalf("a minute later: %v, want expired", err)
	}
}

// TestSpendOnce: one solution buys one action, across servers sharing
// Redis, even when they spend it at the same moment.
func TestSpendOnce(t *testing.T) {
	rdb, prefix := testenv.Redis(t)
	is := pow.NewIssuer(secret, time.Minute, time.Now)
	ch := is.Issue("alice", netA, 7, 4)
	c, err := is.Check(ch+":"+pow.Solve(ch, 4), "alice", netA, 7)
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
}

// TestSpentMarkOutlivesSkew: a spent mark outlives its challenge by the
// margin, so with clocks 90 s apart, whichever is ahead, no server still
// takes a proof once its mark is gone.
func TestSpentMarkOutlivesSkew(t *testing.T) {
	rdb, prefix := testenv.Redis(t)
	const life = 2 * time.Minute // httpapi's
	for _, tc := range []struct {
		name          string
		issuedAgo     time.Duration
		ahead, behind time.Duration // the spender's clock ahead of the true time, another server's behind
	}{
		{"spent at once, another server 90 s behind", 0, 0, 90 * time.Second},
		{"spent in its last second, another server 90 s behind", life - time.Second, 0, 90 * time.Second},
		{"spent in its last second by a clock 90 s ahead", life - time.Second - 90*time.Second, 90 * time.Second, 0},
		{"spent in its last second, clocks 45 s each way", life - time.Second - 45*time.Second, 45 * time.Second, 45 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Now()
			is := pow.NewIssuer(secret, life, func() time.Time { return now.Add(-tc.issuedAgo) })
			ch := is.Issue("alice", netA, 7, 0)
			spender := func() time.Time { return now.Add(tc.ahead) }
			c, err := pow.NewIssuer(secret, life, spender).Check(ch+":0", "alice", netA, 7)
			if err != nil {
				t.Fatal(err)
			}
			if err := pow.NewLedger(rdb, keyspace.New(prefix), spender).Spend(context.Background(), c); err != nil {
				t.Fatal(err)
			}
			ttl := rdb.PTTL(context.Background(), keyspace.New(prefix).Item(7).SpentChallenge(c.ID)).Val()
			// The other server takes the proof until its clock reads the
			// expiry: in true time, behind later.
			if lastTaken, gone := c.Expires.Add(tc.behind), now.Add(ttl); ttl <= 0 || !gone.After(lastTaken) {
				t.Fatalf("the mark lives %v: gone %v before the server %v behind stops taking the proof",
					ttl, lastTaken.Sub(gone), tc.behind)
			}
			if limit := max(c.Expires.Sub(spender()), 0) + pow.SpentMargin; ttl > limit {
				t.Fatalf("the mark lives %v, more than the rest of its challenge's life and the margin (%v)", ttl, limit)
			}
		})
	}
}

// BenchmarkCheck is the server's cost of checking one proof (MAC, parse,
// one hash), the price of verifying against the client's of solving.
func BenchmarkCheck(b *testing.B) {
	is := pow.NewIssuer(secret, time.Minute, time.Now)
	ch := is.Issue("alice", netA, 7, 12)
	proof := ch + ":" + pow.Solve(ch, 12)
	for b.Loop() {
		if _, err := is.Check(proof, "alice", netA, 7); err != nil {
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
		ch := is.Issue("alice", netA, 7, 4)
		proofs[i] = ch + ":" + pow.Solve(ch, 4)
	}
	ctx := context.Background()
	i := 0
	for b.Loop() {
		c, err := is.Check(proofs[i%len(proofs)], "alice", netA, 7)
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
