package purchase

import (
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// The retry of the purchase that took a size's last unit gets its order
// back, though the server has marked the size sold out meanwhile: a request
// with an Idempotency-Key always asks Redis, at a size's mark as at the
// sale's.
func TestVariantSoldOutMarkLetsTheBuyersRetryThrough(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, &e2etest.LiveClock{}, func(c *config.Config) { c.SoldOutTTL = time.Hour })
	id, sizes := s.LiveDrop(t, 1, 1)
	buy := func(user string, size int64, key string) e2etest.Reply {
		return s.BuyVariant(t, id, size, e2etest.MintToken(t, user), key)
	}

	first := buy("ann", sizes[0], "ann-1")
	e2etest.Check(t, first, e2etest.Want{Status: 202})
	e2etest.Check(t, buy("bob", sizes[0], ""), e2etest.Want{Status: 410, Code: "sold_out"}) // Redis says so; the server marks the size
	marked := e2etest.Metric(t, s, "gated_sold_out")
	e2etest.Check(t, buy("cat", sizes[0], ""), e2etest.Want{Status: 410, Code: "sold_out"})
	if e2etest.Metric(t, s, "gated_sold_out") != marked+1 {
		t.Fatal("the size's mark did not answer cat")
	}
	r := buy("ann", sizes[0], "ann-1")
	if r.Status != 202 || r.Str("order_id") != first.Str("order_id") || r.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry of the purchase of the size's last unit: %d %s", r.Status, r.Raw)
	}
	e2etest.Check(t, buy("dan", sizes[1], "dan-1"), e2etest.Want{Status: 202}) // the other size still sells
}
