package app_test

import (
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
)

// The retry of the purchase that took a size's last unit gets its order
// back, though the server has marked the size sold out meanwhile: a request
// with an Idempotency-Key always asks Redis, at a size's mark as at the
// sale's.
func TestVariantSoldOutMarkLetsTheBuyersRetryThrough(t *testing.T) {
	t.Parallel()
	s := start(t, &liveClock{}, func(c *config.Config) { c.SoldOutTTL = time.Hour })
	id, sizes := s.liveDrop(t, 1, 1)
	buy := func(user string, size int64, key string) reply {
		return s.buyVariant(t, id, size, mintToken(t, user), key)
	}

	first := buy("ann", sizes[0], "ann-1")
	check(t, first, want{202, "", ""})
	check(t, buy("bob", sizes[0], ""), want{410, "sold_out", ""}) // Redis says so; the server marks the size
	marked := metric(t, s, "gated_sold_out")
	check(t, buy("cat", sizes[0], ""), want{410, "sold_out", ""})
	if metric(t, s, "gated_sold_out") != marked+1 {
		t.Fatal("the size's mark did not answer cat")
	}
	r := buy("ann", sizes[0], "ann-1")
	if r.status != 202 || r.str("order_id") != first.str("order_id") || r.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry of the purchase of the size's last unit: %d %s", r.status, r.raw)
	}
	check(t, buy("dan", sizes[1], "dan-1"), want{202, "", ""}) // the other size still sells
}
