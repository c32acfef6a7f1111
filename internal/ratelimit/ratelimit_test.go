package ratelimit_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/ratelimit"
	"github.com/seckill/seckill/internal/testenv"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }

func TestBurstThenRate(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	clk := &clock{t: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	l := ratelimit.New(rdb, prefix, clk.Now)
	ctx := context.Background()
	check := ratelimit.Check{Key: l.Key("shopper", "alice", "purchase"), Rate: ratelimit.Rate{PerSecond: 2, Burst: 3}}
	for i := range 3 {
		if ok, _, err := l.Allow(ctx, check); !ok || err != nil {
			t.Fatalf("request %d of the burst refused: %v", i+1, err)
		}
	}
	ok, wait, err := l.Allow(ctx, check)
	if ok || err != nil || wait <= 0 || wait > 500*time.Millisecond {
		t.Fatalf("4th request at once: ok=%v wait=%v err=%v; want refused, retry within 500ms", ok, wait, err)
	}
	clk.Add(wait)
	if ok, _, _ := l.Allow(ctx, check); !ok {
		t.Fatal("refused after waiting Retry-After")
	}
	if ok, _, _ := l.Allow(ctx, check); ok {
		t.Fatal("a second request right after the refill was allowed")
	}
	other := ratelimit.Check{Key: l.Key("shopper", "bob", "purchase"), Rate: check.Rate}
	if ok, _, _ := l.Allow(ctx, other); !ok {
		t.Fatal("another shopper was limited by alice's requests")
	}
	if ok, _, _ := l.Allow(ctx, ratelimit.Check{Key: "x", Rate: ratelimit.Rate{}}); !ok {
		t.Fatal("a limit that is off refused")
	}
}

// TestSustainedRate: over 10 simulated seconds at 50 requests a second
// against 5/s burst 5, about 5 + 5×10 are allowed.
func TestSustainedRate(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	clk := &clock{t: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	l := ratelimit.New(rdb, prefix, clk.Now)
	check := ratelimit.Check{Key: l.Key("ip", "192.0.2.1", "purchase"), Rate: ratelimit.Rate{PerSecond: 5, Burst: 5}}
	allowed := 0
	for range 500 {
		if ok, _, err := l.Allow(context.Background(), check); err != nil {
			t.Fatal(err)
		} else if ok {
			allowed++
		}
		clk.Add(20 * time.Millisecond)
	}
	if allowed < 54 || allowed > 56 {
		t.Fatalf("%d allowed in 10s, want about 55", allowed)
	}
}
