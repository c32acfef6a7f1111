package app_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
)

// buyDrop buys qty of variant for user and waits until the order is in
// MySQL; it returns the order's id.
func (s *server) buyDrop(tb testing.TB, item, variant int64, user string, qty int) string {
	tb.Helper()
	body := fmt.Sprintf(`{"variant_id":%d,"quantity":%d}`, variant, qty)
	r := s.call(tb, "POST", "/api/v1/items/"+itoa(item)+"/purchase", mintToken(tb, user), body)
	if r.status != 202 {
		tb.Fatalf("buy %d of variant %d: %d %s", qty, variant, r.status, r.raw)
	}
	s.settle(tb, item)
	return r.str("order_id")
}

// TestPaymentAmount: a payment must be what the order costs, its quantity
// at its variant's own price where it has one, else the sale's, as they
// were when the order was taken. A wrong amount is refused and recorded,
// pays nothing, and the shop is asked to give the money back.
func TestPaymentAmount(t *testing.T) {
	t.Parallel()
	s := start(t, newClock(t0), withPayments(t))
	created := s.call(t, "POST", "/api/v1/admin/items", adminToken,
		dropBody(t0, size("EU 41", 5), size("EU 42", 5, "price_cents", 15900)))
	if created.status != 201 {
		t.Fatalf("create drop: %s", created.raw)
	}
	id, sizes := int64(num(created.body, "id")), variantIDs(t, created)
	own := s.buyDrop(t, id, sizes["EU 42"], "ann", 2)     // 2 × 15900
	inherit := s.buyDrop(t, id, sizes["EU 41"], "ben", 2) // 2 × the sale's 12900

	check(t, s.callback(t, paymentBody(own, "paid", 2*12900, "pay_own_1")), want{422, "amount_mismatch", ""})
	// The same refused payment again is refused again, not recorded twice.
	check(t, s.callback(t, paymentBody(own, "paid", 2*12900, "pay_own_1")), want{422, "amount_mismatch", ""})
	recs := paymentsOf(t, s, own)
	if len(recs) != 1 || recs[0].Outcome != "amount_mismatch" || recs[0].AmountCents != 2*12900 || recs[0].ExpectedCents != 2*15900 {
		t.Fatalf("payments of the mismatched order: %+v; want one amount_mismatch expecting %d", recs, 2*15900)
	}
	evs := orderEvents(t, s, own)
	if st, _ := orderStatus(t, s, own); st != "confirmed" || eventTypes(evs) != "order.confirmed,payment.refund_required" ||
		evs[1].Data["refund_reason"] != "amount_mismatch" {
		t.Fatalf("after a mismatch: order %s, events %+v; want it unchanged and one refund asked for", st, evs)
	}
	outcome(t, s.callback(t, paymentBody(own, "paid", 2*15900, "pay_own_2")), "paid", "paid")

	check(t, s.callback(t, paymentBody(inherit, "paid", 2*15900, "pay_inherit_1")), want{422, "amount_mismatch", ""})
	r := s.callback(t, paymentBody(inherit, "paid", 2*12900, "pay_inherit_2"))
	outcome(t, r, "paid", "paid")
	if o := r.body["order"].(map[string]any); o["variant_label"] != "EU 41" || o["quantity"] != 2.0 {
		t.Fatalf("the answer's order: %s", r.raw)
	}
	paid := orderEvents(t, s, inherit)
	if eventTypes(paid) != "order.confirmed,payment.refund_required,order.paid" || paid[2].Data["amount_cents"] != float64(2*12900) {
		t.Fatalf("events of the paid order: %+v", paid)
	}

	// A price changed after the order was taken (a typo fixed) does not
	// change what the order costs.
	earlier := s.buyDrop(t, id, sizes["EU 41"], "cy", 1)
	if r := s.call(t, "PATCH", "/api/v1/admin/items/"+itoa(id), adminToken, map[string]any{"price_cents": 14900}); r.status != 200 {
		t.Fatalf("change the price: %d %s", r.status, r.raw)
	}
	outcome(t, s.callback(t, paymentBody(earlier, "paid", 12900, "pay_earlier")), "paid", "paid")
	later := s.buyDrop(t, id, sizes["EU 41"], "di", 1)
	check(t, s.callback(t, paymentBody(later, "paid", 12900, "pay_later_1")), want{422, "amount_mismatch", ""})
	outcome(t, s.callback(t, paymentBody(later, "paid", 14900, "pay_later_2")), "paid", "paid")
}

// TestPaymentIdempotentByProviderRef: a provider_ref seen before answers
// what was decided then and changes nothing; naming another order with it
// is a conflict. A failed payment leaves the order to be paid.
func TestPaymentIdempotentByProviderRef(t *testing.T) {
	t.Parallel()
	s := start(t, newClock(t0), withPayments(t))
	id := s.sale(t, 5, 1, t0, t0.Add(time.Hour))
	orders := buyConfirmed(t, s, id, "alice", "bob")

	outcome(t, s.callback(t, paymentBody(orders[0], "failed", 12900, "pay_1")), "payment_failed", "confirmed")
	first := s.callback(t, paymentBody(orders[0], "paid", 12900, "pay_2"))
	outcome(t, first, "paid", "paid")
	again := s.callback(t, paymentBody(orders[0], "paid", 12900, "pay_2"))
	if again.raw != first.raw {
		t.Fatalf("replay answered %s, the first %s", again.raw, first.raw)
	}
	// The failed payment's answer is what was decided, the order as it is now.
	outcome(t, s.callback(t, paymentBody(orders[0], "failed", 12900, "pay_1")), "payment_failed", "paid")
	check(t, s.callback(t, paymentBody(orders[1], "paid", 12900, "pay_2")), want{409, "provider_ref_conflict", ""})
	// The same reference saying something else of its payment is a conflict.
	check(t, s.callback(t, paymentBody(orders[0], "paid", 12800, "pay_2")), want{409, "provider_ref_conflict", ""})
	check(t, s.callback(t, paymentBody(orders[0], "failed", 12900, "pay_2")), want{409, "provider_ref_conflict", ""})

	if got := eventTypes(orderEvents(t, s, orders[0])); got != "order.confirmed,order.paid" {
		t.Fatalf("events after replays: %s; want one order.paid", got)
	}
	if recs := paymentsOf(t, s, orders[0]); len(recs) != 2 {
		t.Fatalf("payments recorded: %+v; want pay_1 and pay_2 once each", recs)
	}
	if st, _ := orderStatus(t, s, orders[1]); st != "confirmed" || len(paymentsOf(t, s, orders[1])) != 0 {
		t.Fatalf("the conflicting callback changed bob's order: %s %+v", st, paymentsOf(t, s, orders[1]))
	}
}

// TestPaymentOfAnOrderItCannotPay: a payment for an order already cancelled
// (here by its shopper) or already paid (here by the demo's Pay) changes
// neither order: the shop is asked to refund it.
func TestPaymentOfAnOrderItCannotPay(t *testing.T) {
	t.Parallel()
	s := start(t, newClock(t0), withPayments(t))
	id := s.sale(t, 5, 1, t0, t0.Add(time.Hour))
	orders := buyConfirmed(t, s, id, "alice", "bob")
	check(t, s.call(t, "POST", "/api/v1/orders/"+orders[0]+"/cancel", mintToken(t, "alice"), nil), want{200, "", ""})
	check(t, s.call(t, "POST", "/api/v1/orders/"+orders[1]+"/pay", mintToken(t, "bob"), nil), want{200, "", ""})
	settled := s.settle(t, id)

	tests := []struct {
		order, status, reason string
	}{
		{orders[0], "cancelled", "order_cancelled"},
		{orders[1], "paid", "already_paid"},
	}
	for _, tt := range tests {
		ref := "pay_late_" + tt.order
		outcome(t, s.callback(t, paymentBody(tt.order, "paid", 12900, ref)), "refund_required", tt.status)
		evs := orderEvents(t, s, tt.order)
		last := evs[len(evs)-1]
		pay, _ := last.Data["payment"].(map[string]any)
		if last.Type != "payment.refund_required" || last.Data["refund_reason"] != tt.reason || last.Data["status"] != tt.status ||
			last.Data["order_id"] != tt.order || pay["provider_ref"] != ref || pay["amount_cents"] != 12900.0 {
			t.Errorf("last event of the %s order: %+v; want payment.refund_required, %s", tt.status, last, tt.reason)
		}
		if st, _ := orderStatus(t, s, tt.order); st != tt.status {
			t.Errorf("the %s order is %s after the payment", tt.status, st)
		}
	}
	if cancelled := orderEvents(t, s, orders[0]); cancelled[len(cancelled)-1].Data["reason"] != "shopper" {
		t.Errorf("the refund event does not say why the order was cancelled: %+v", cancelled[len(cancelled)-1])
	}
	st := s.stats(t, id)
	if st.body["consistent"] != true || num(st.body, "stock_mysql") != num(settled.body, "stock_mysql") || num(st.body, "stock_mysql") != 4 {
		t.Fatalf("stock moved by a payment that paid nothing: %s (before: %s)", st.raw, settled.raw)
	}
}

// TestDemoPaymentsOff: in production the shopper's Pay is refused and the
// orders page is told not to offer it; the provider's callback pays.
func TestDemoPaymentsOff(t *testing.T) {
	t.Parallel()
	s := start(t, newClock(t0), withPayments(t), func(c *config.Config) { c.DemoPayments = false })
	id := s.sale(t, 5, 1, t0, t0.Add(time.Hour))
	oid := buyConfirmed(t, s, id, "alice")[0]
	tok := mintToken(t, "alice")
	check(t, s.call(t, "POST", "/api/v1/orders/"+oid+"/pay", tok, nil), want{403, "demo_payments_off", ""})
	if st, _ := orderStatus(t, s, oid); st != "confirmed" {
		t.Fatalf("a refused Pay left the order %s", st)
	}
	if r := s.call(t, "GET", "/api/v1/orders", tok, nil); r.status != 200 || r.body["demo_payments"] != false {
		t.Fatalf("the orders list: %s; want demo_payments false", r.raw)
	}
	outcome(t, s.callback(t, paymentBody(oid, "paid", 12900, "pay_prod_1")), "paid", "paid")

	demo := start(t, newClock(t0))
	if r := demo.call(t, "GET", "/api/v1/orders", tok, nil); r.status != 200 || r.body["demo_payments"] != true {
		t.Fatalf("the orders list with demo payments on: %s", r.raw)
	}
}

// TestPaymentRetriedUnderOneReference: a provider that retries a failed
// payment under the same reference pays the order when the retry
// succeeds; the reference then answers paid.
func TestPaymentRetriedUnderOneReference(t *testing.T) {
	t.Parallel()
	s := start(t, newClock(t0), withPayments(t))
	id := s.sale(t, 5, 1, t0, t0.Add(time.Hour))
	orders := buyConfirmed(t, s, id, "alice")
	outcome(t, s.callback(t, paymentBody(orders[0], "failed", 12900, "pi_1")), "payment_failed", "confirmed")
	outcome(t, s.callback(t, paymentBody(orders[0], "paid", 12900, "pi_1")), "paid", "paid")
	outcome(t, s.callback(t, paymentBody(orders[0], "paid", 12900, "pi_1")), "paid", "paid")
	if got := eventTypes(orderEvents(t, s, orders[0])); got != "order.confirmed,order.paid" {
		t.Fatalf("events: %s", got)
	}
	if recs := paymentsOf(t, s, orders[0]); len(recs) != 1 || recs[0].Outcome != "paid" {
		t.Fatalf("payments recorded: %+v; want pi_1 once, paid", recs)
	}
}
