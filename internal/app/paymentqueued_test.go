package app_test

import (
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/internal/webhook"
)

// clocks is a sale clock and a real-time clock a test moves apart.
type clocks struct{ sale, wall *clock }

func (c clocks) Now() time.Time  { return c.sale.Now() }
func (c clocks) Wall() time.Time { return c.wall.Now() }

// callbackAt is callback signed at the provider's time at.
func (s *server) callbackAt(tb testing.TB, at time.Time, body []byte) reply {
	tb.Helper()
	return s.call(tb, "POST", callbackPath, "", body, webhook.SignatureHeader, webhook.Sign([]byte(paymentSecret), at, body))
}

// TestPaymentForAnOrderStillQueued: a callback for an order Redis still
// holds, however long after it was taken, is told to retry (503
// order_pending, Retry-After), never that the order does not exist; once
// the order is stored, the same callback pays it. An id Redis does not
// hold is not found, however young.
func TestPaymentForAnOrderStillQueued(t *testing.T) {
	t.Parallel()
	clk := clocks{sale: newClock(t0), wall: newClock(time.Now())}
	s := start(t, clk, withPayments(t), noPersisters)
	id := s.sale(t, 5, 1, t0, t0.Add(time.Hour))
	r := s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", mintToken(t, "alice"), nil)
	check(t, r, want{202, "", ""})
	oid := r.str("order_id")

	clk.wall.Add(6 * time.Minute)
	body := paymentBody(oid, "paid", 12900, "pi_late")
	r = s.callbackAt(t, clk.Wall(), body)
	check(t, r, want{503, "order_pending", ""})
	if r.header.Get("Retry-After") == "" {
		t.Error("order_pending without Retry-After")
	}
	if recs := paymentsOf(t, s, oid); len(recs) != 0 {
		t.Fatalf("a payment recorded for an order not stored yet: %+v", recs)
	}
	unknown := ulid.MustNew(ulid.Timestamp(clk.Wall()), ulid.DefaultEntropy()).String()
	check(t, s.callbackAt(t, clk.Wall(), paymentBody(unknown, "paid", 12900, "pi_unknown")), want{404, "order_not_found", ""})

	persisting := *s
	persisting.cfg.Workers = 2
	persisting.twin(t, clk)
	testenv.WaitFor(t, 10*time.Second, func() bool {
		var n int64
		s.db.Gorm.Raw("SELECT COUNT(*) FROM orders WHERE id = ?", oid).Scan(&n)
		return n == 1
	}, "the order stored once persisters run")
	outcome(t, s.callbackAt(t, clk.Wall(), body), "paid", "paid")
}
