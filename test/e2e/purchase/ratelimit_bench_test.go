package purchase

import (
	"strconv"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/ratelimit"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// BenchmarkRefusedVsReserved compares what a purchase request costs end to
// end (HTTP, auth, the limits, the script) when the rate limit refuses it
// and when it reserves stock. Run: go test ./test/e2e/purchase -run '^$' -bench Refused
func BenchmarkRefusedVsReserved(b *testing.B) {
	s := e2etest.Start(b, &e2etest.LiveClock{}, func(c *config.Config) {
		c.RateShopper = ratelimit.Rate{PerSecond: 1, Burst: 1}
		c.RateIP = ratelimit.Rate{PerSecond: 1e6, Burst: 1e6}
	})
	id := s.Sale(b, 10_000_000, 1, time.Now().Add(-time.Minute), time.Now().Add(time.Hour))
	path := "/api/v1/items/" + e2etest.Itoa(id) + "/purchase"
	b.Run("reserved", func(b *testing.B) {
		tokens := make([]string, b.N)
		for i := range tokens {
			tokens[i] = e2etest.MintToken(b, "r"+strconv.Itoa(i)+"-"+strconv.Itoa(b.N))
		}
		b.ResetTimer()
		for i := range b.N {
			if r := s.Call(b, "POST", path, tokens[i], nil); r.Status != 202 {
				b.Fatalf("%d %s", r.Status, r.Raw)
			}
		}
	})
	b.Run("rate_limited", func(b *testing.B) {
		tok := e2etest.MintToken(b, "flooder")
		s.Call(b, "POST", path, tok, nil) // uses the burst
		b.ResetTimer()
		for range b.N {
			if r := s.Call(b, "POST", path, tok, nil); r.Status != 429 {
				b.Fatalf("%d %s", r.Status, r.Raw)
			}
		}
	})
}
