package app_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/ratelimit"
)

// BenchmarkRefusedVsReserved compares what a purchase request costs end to
// end (HTTP, auth, the limits, the script) when the rate limit refuses it
// and when it reserves stock. Run: go test ./internal/app -run '^$' -bench Refused
func BenchmarkRefusedVsReserved(b *testing.B) {
	s := start(b, &liveClock{}, func(c *config.Config) {
		c.RateShopper = ratelimit.Rate{PerSecond: 1, Burst: 1}
		c.RateIP = ratelimit.Rate{PerSecond: 1e6, Burst: 1e6}
	})
	id := s.sale(b, 10_000_000, 1, time.Now().Add(-time.Minute), time.Now().Add(time.Hour))
	path := "/api/v1/items/" + itoa(id) + "/purchase"
	b.Run("reserved", func(b *testing.B) {
		tokens := make([]string, b.N)
		for i := range tokens {
			tokens[i] = mintToken(b, "r"+strconv.Itoa(i)+"-"+strconv.Itoa(b.N))
		}
		b.ResetTimer()
		for i := range b.N {
			if r := s.call(b, "POST", path, tokens[i], nil); r.status != 202 {
				b.Fatalf("%d %s", r.status, r.raw)
			}
		}
	})
	b.Run("rate_limited", func(b *testing.B) {
		tok := mintToken(b, "flooder")
		s.call(b, "POST", path, tok, nil) // uses the burst
		b.ResetTimer()
		for range b.N {
			if r := s.call(b, "POST", path, tok, nil); r.status != 429 {
				b.Fatalf("%d %s", r.status, r.raw)
			}
		}
	})
}
