package payments

import (
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// clocks is a sale clock and a real-time clock a test moves apart.
type clocks struct{ sale, wall *e2etest.Clock }

func (c clocks) Now() time.Time  { return c.sale.Now() }
func (c clocks) Wall() time.Time { return c.wall.Now() }

// TestPaymentForAnOrderStillQueued: a callback for an order Redis still
// holds, however long after it was taken, is told to retry (503
// order_pending, Retry-After), never that the order does not exist; once
// the order is stored, the same callback pays it. An id Redis does not
// hold is not found, however young.
func TestPaymentForAnOrderStillQueued(t *testing.T) {
	t.Parallel()
	clk := clocks{sale: e2etest.NewClock(e2etest.T0), wall: e2etest.NewClock(time.Now())}
	s := e2etest.Start(t, clk, e2etest.WithPayments(t), e2etest.NoPersisters)
	id := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	r := s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", e2etest.MintToken(t, "alice"), nil)
	e2etest.Check(t, r, e2etest.Want{Status: 202})
	oid := r.Str("order_id")

	clk.wall.Add(6 * time.Minute)
	body := e2etest.PaymentBody(oid, "paid", 12900, "pi_late")
	r = s.CallbackAt(t, clk.Wall(), body)
	e2etest.Check(t, r, e2etest.Want{Status: 503, Code: "order_pending"})
	if r.Header.Get("Retry-After") == "" {
		t.Error("order_pending without Retry-After")
	}
	if recs := paymentsOf(t, s, oid); len(recs) != 0 {
		t.Fatalf("a payment recorded for an order not stored yet: %+v", recs)
	}
	unknown := ulid.MustNew(ulid.Timestamp(clk.Wall()), ulid.DefaultEntropy()).String()
	e2etest.Check(t, s.CallbackAt(t, clk.Wall(), e2etest.PaymentBody(unknown, "paid", 12900, "pi_unknown")), e2etest.Want{Status: 404, Code: "order_not_found"})

	persisting := *s
	persisting.Cfg.Workers = 2
	persisting.Twin(t, clk)
	testenv.WaitFor(t, 10*time.Second, func() bool {
		var n int64
		s.Db.Gorm.Raw("SELECT COUNT(*) FROM orders WHERE id = ?", oid).Scan(&n)
		return n == 1
	}, "the order stored once persisters run")
	e2etest.Outcome(t, s.CallbackAt(t, clk.Wall(), body), "paid", "paid")
}
