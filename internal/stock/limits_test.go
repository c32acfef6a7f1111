package stock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/stock"
)

// limitedReq is a purchase the script rate-limits, from client.
func limitedReq(user, client string, at time.Time) stock.Request {
	r := req(user, 1, at)
	r.ClientKey = client
	return r
}

// TestPurchaseLimitsInTheScript: the script counts purchases per shopper
// and per client like the separate rate-limit script did: the burst at
// once, then the sustained rate; a refusal changes nothing; the client is
// charged only for requests the shopper's own limit let through.
func TestPurchaseLimitsInTheScript(t *testing.T) {
	t.Parallel()
	s, rdb, keys := newStore(t)
	ctx := context.Background()
	warm(t, s, 1, sale(100, 1))
	s.SetLimits(stock.Limits{ShopperEvery: time.Second, ShopperBurst: 2, ClientEvery: 100 * time.Millisecond, ClientBurst: 4})
	at := t0.Add(time.Minute)

	// The bot's burst of 2 passes the limit (the second is already_purchased),
	// the third is refused for a second.
	for i, want := range []error{nil, stock.ErrAlreadyPurchased} {
		if _, err := s.Reserve(ctx, limitedReq("bot", "10.0.0.1", at)); !errors.Is(err, want) && !(want == nil && err == nil) {
			t.Fatalf("bot request %d: %v, want %v", i+1, err, want)
		}
	}
	_, err := s.Reserve(ctx, limitedReq("bot", "10.0.0.1", at))
	var limited *stock.RateLimitedError
	if !errors.As(err, &limited) || limited.Wait != time.Second {
		t.Fatalf("third bot request: %v, want rate limited for 1s", err)
	}
	// Refused requests did not spend the office's allowance: two colleagues
	// buy from the same IP (4 at once: the bot's 2 and theirs).
	for _, u := range []string{"alice", "bob"} {
		if _, err := s.Reserve(ctx, limitedReq(u, "10.0.0.1", at)); err != nil {
			t.Fatalf("%s behind the bot's IP: %v", u, err)
		}
	}
	_, err = s.Reserve(ctx, limitedReq("carol", "10.0.0.1", at))
	if !errors.As(err, &limited) {
		t.Fatalf("the IP's fifth request at once: %v, want rate limited", err)
	}
	if n, _ := rdb.HExists(ctx, keys.Item(1).Buyers(), "carol").Result(); n {
		t.Fatal("a rate-limited purchase reserved anyway")
	}
	// The IP refills at 10/s: a tenth of a second later one more passes.
	if _, err := s.Reserve(ctx, limitedReq("carol", "10.0.0.1", at.Add(100*time.Millisecond))); err != nil {
		t.Fatalf("after the refill: %v", err)
	}
	// Requests the server checked itself ("" client) are not counted again.
	for i := range 5 {
		if _, err := s.Reserve(ctx, limitedReq("dave"+string(rune('a'+i)), "", at)); err != nil {
			t.Fatalf("a request checked before the script: %v", err)
		}
	}
	// Each bucket expires once it would be full again: the bot's (burst 2 at
	// 1/s) within 2 s, the IP's (burst 4 at 10/s) within 0.4 s.
	for key, most := range map[string]time.Duration{keys.Item(1).ShopperLimit("bot"): 2 * time.Second,
		keys.Item(1).ClientLimit("10.0.0.1"): 500 * time.Millisecond} {
		ttl, err := rdb.PTTL(ctx, key).Result()
		if err != nil || ttl <= 0 || ttl > most+10*time.Millisecond {
			t.Fatalf("%s lives %v (%v), want at most %v", key, ttl, err, most)
		}
	}
}

// TestPurchaseLimitsWithinABatch: one call holding many requests of one
// shopper counts each, as separate calls would.
func TestPurchaseLimitsWithinABatch(t *testing.T) {
	t.Parallel()
	s, _, _ := newSale(t, 100, 1)
	s.SetLimits(stock.Limits{ShopperEvery: time.Second, ShopperBurst: 3})
	at := t0.Add(time.Minute)
	reqs := make([]stock.Request, 6)
	for i := range reqs {
		reqs[i] = limitedReq("bot", "10.0.0.9", at)
	}
	out := make([]stock.Outcome, len(reqs))
	s.ReserveBatch(context.Background(), reqs, out)
	limited := 0
	for _, o := range out {
		if errors.Is(o.Err, stock.ErrRateLimited) {
			limited++
		}
	}
	if limited != 3 {
		t.Fatalf("%d of 6 requests in one batch were rate limited, want 3 (burst 3)", limited)
	}
}
