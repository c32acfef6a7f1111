package payments

import (
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestPaymentAmount: a payment must be what the order costs, its quantity
// at its variant's own price where it has one, else the sale's, as they
// were when the order was taken. A wrong amount is refused and recorded,
// pays nothing, and the shop is asked to give the money back.
func TestPaymentAmount(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0), e2etest.WithPayments(t))
	created := s.Call(t, "POST", "/api/v1/admin/items", e2etest.AdminToken,
		e2etest.DropBody(e2etest.T0, e2etest.Size("EU 41", 5), e2etest.Size("EU 42", 5, "price_cents", 15900)))
	if created.Status != 201 {
		t.Fatalf("create drop: %s", created.Raw)
	}
	id, sizes := int64(e2etest.Num(created.Body, "id")), e2etest.VariantIDs(t, created)
	own := s.BuyDrop(t, id, sizes["EU 42"], "ann", 2)     // 2 × 15900
	inherit := s.BuyDrop(t, id, sizes["EU 41"], "ben", 2) // 2 × the sale's 12900

	e2etest.Check(t, s.Callback(t, e2etest.PaymentBody(own, "paid", 2*12900, "pay_own_1")), e2etest.Want{Status: 422, Code: "amount_mismatch"})
	// The same refused payment again is refused again, not recorded twice.
	e2etest.Check(t, s.Callback(t, e2etest.PaymentBody(own, "paid", 2*12900, "pay_own_1")), e2etest.Want{Status: 422, Code: "amount_mismatch"})
	recs := paymentsOf(t, s, own)
	if len(recs) != 1 || recs[0].Outcome != "amount_mismatch" || recs[0].AmountCents != 2*12900 || recs[0].ExpectedCents != 2*15900 {
		t.Fatalf("payments of the mismatched order: %+v; want one amount_mismatch expecting %d", recs, 2*15900)
	}
	evs := e2etest.OrderEvents(t, s, own)
	if st, _ := orderStatus(t, s, own); st != "confirmed" || e2etest.EventTypes(evs) != "order.confirmed,payment.refund_required" ||
		evs[1].Data["refund_reason"] != "amount_mismatch" {
		t.Fatalf("after a mismatch: order %s, events %+v; want it unchanged and one refund asked for", st, evs)
	}
	e2etest.Outcome(t, s.Callback(t, e2etest.PaymentBody(own, "paid", 2*15900, "pay_own_2")), "paid", "paid")

	e2etest.Check(t, s.Callback(t, e2etest.PaymentBody(inherit, "paid", 2*15900, "pay_inherit_1")), e2etest.Want{Status: 422, Code: "amount_mismatch"})
	r := s.Callback(t, e2etest.PaymentBody(inherit, "paid", 2*12900, "pay_inherit_2"))
	e2etest.Outcome(t, r, "paid", "paid")
	if o := r.Body["order"].(map[string]any); o["variant_label"] != "EU 41" || o["quantity"] != 2.0 {
		t.Fatalf("the answer's order: %s", r.Raw)
	}
	paid := e2etest.OrderEvents(t, s, inherit)
	if e2etest.EventTypes(paid) != "order.confirmed,payment.refund_required,order.paid" || paid[2].Data["amount_cents"] != float64(2*12900) {
		t.Fatalf("events of the paid order: %+v", paid)
	}

	// A price changed after the order was taken (a typo fixed) does not
	// change what the order costs.
	earlier := s.BuyDrop(t, id, sizes["EU 41"], "cy", 1)
	if r := s.Call(t, "PATCH", "/api/v1/admin/items/"+e2etest.Itoa(id), e2etest.AdminToken, map[string]any{"price_cents": 14900}); r.Status != 200 {
		t.Fatalf("change the price: %d %s", r.Status, r.Raw)
	}
	e2etest.Outcome(t, s.Callback(t, e2etest.PaymentBody(earlier, "paid", 12900, "pay_earlier")), "paid", "paid")
	later := s.BuyDrop(t, id, sizes["EU 41"], "di", 1)
	e2etest.Check(t, s.Callback(t, e2etest.PaymentBody(later, "paid", 12900, "pay_later_1")), e2etest.Want{Status: 422, Code: "amount_mismatch"})
	e2etest.Outcome(t, s.Callback(t, e2etest.PaymentBody(later, "paid", 14900, "pay_later_2")), "paid", "paid")
}

// TestPaymentIdempotentByProviderRef: a provider_ref seen before answers
// what was decided then and changes nothing; naming another order with it
// is a conflict. A failed payment leaves the order to be paid.
func TestPaymentIdempotentByProviderRef(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0), e2etest.WithPayments(t))
	id := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	orders := e2etest.BuyConfirmed(t, s, id, "alice", "bob")

	e2etest.Outcome(t, s.Callback(t, e2etest.PaymentBody(orders[0], "failed", 12900, "pay_1")), "payment_failed", "confirmed")
	first := s.Callback(t, e2etest.PaymentBody(orders[0], "paid", 12900, "pay_2"))
	e2etest.Outcome(t, first, "paid", "paid")
	again := s.Callback(t, e2etest.PaymentBody(orders[0], "paid", 12900, "pay_2"))
	if again.Raw != first.Raw {
		t.Fatalf("replay answered %s, the first %s", again.Raw, first.Raw)
	}
	// The failed payment's answer is what was decided, the order as it is now.
	e2etest.Outcome(t, s.Callback(t, e2etest.PaymentBody(orders[0], "failed", 12900, "pay_1")), "payment_failed", "paid")
	e2etest.Check(t, s.Callback(t, e2etest.PaymentBody(orders[1], "paid", 12900, "pay_2")), e2etest.Want{Status: 409, Code: "provider_ref_conflict"})
	// The same reference saying something else of its payment is a conflict.
	e2etest.Check(t, s.Callback(t, e2etest.PaymentBody(orders[0], "paid", 12800, "pay_2")), e2etest.Want{Status: 409, Code: "provider_ref_conflict"})
	e2etest.Check(t, s.Callback(t, e2etest.PaymentBody(orders[0], "failed", 12900, "pay_2")), e2etest.Want{Status: 409, Code: "provider_ref_conflict"})

	if got := e2etest.EventTypes(e2etest.OrderEvents(t, s, orders[0])); got != "order.confirmed,order.paid" {
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
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0), e2etest.WithPayments(t))
	id := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	orders := e2etest.BuyConfirmed(t, s, id, "alice", "bob")
	e2etest.Check(t, s.Call(t, "POST", "/api/v1/orders/"+orders[0]+"/cancel", e2etest.MintToken(t, "alice"), nil), e2etest.Want{Status: 200})
	e2etest.Check(t, s.Call(t, "POST", "/api/v1/orders/"+orders[1]+"/pay", e2etest.MintToken(t, "bob"), nil), e2etest.Want{Status: 200})
	settled := s.Settle(t, id)

	tests := []struct {
		order, status, reason string
	}{
		{orders[0], "cancelled", "order_cancelled"},
		{orders[1], "paid", "already_paid"},
	}
	for _, tt := range tests {
		ref := "pay_late_" + tt.order
		e2etest.Outcome(t, s.Callback(t, e2etest.PaymentBody(tt.order, "paid", 12900, ref)), "refund_required", tt.status)
		evs := e2etest.OrderEvents(t, s, tt.order)
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
	if cancelled := e2etest.OrderEvents(t, s, orders[0]); cancelled[len(cancelled)-1].Data["reason"] != "shopper" {
		t.Errorf("the refund event does not say why the order was cancelled: %+v", cancelled[len(cancelled)-1])
	}
	st := s.Stats(t, id)
	if st.Body["consistent"] != true || e2etest.Num(st.Body, "stock_mysql") != e2etest.Num(settled.Body, "stock_mysql") || e2etest.Num(st.Body, "stock_mysql") != 4 {
		t.Fatalf("stock moved by a payment that paid nothing: %s (before: %s)", st.Raw, settled.Raw)
	}
}

// TestDemoPaymentsOff: in production the shopper's Pay is refused and the
// orders page is told not to offer it; the provider's callback pays.
func TestDemoPaymentsOff(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0), e2etest.WithPayments(t), func(c *config.Config) { c.DemoPayments = false })
	id := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	oid := e2etest.BuyConfirmed(t, s, id, "alice")[0]
	tok := e2etest.MintToken(t, "alice")
	e2etest.Check(t, s.Call(t, "POST", "/api/v1/orders/"+oid+"/pay", tok, nil), e2etest.Want{Status: 403, Code: "demo_payments_off"})
	if st, _ := orderStatus(t, s, oid); st != "confirmed" {
		t.Fatalf("a refused Pay left the order %s", st)
	}
	if r := s.Call(t, "GET", "/api/v1/orders", tok, nil); r.Status != 200 || r.Body["demo_payments"] != false {
		t.Fatalf("the orders list: %s; want demo_payments false", r.Raw)
	}
	e2etest.Outcome(t, s.Callback(t, e2etest.PaymentBody(oid, "paid", 12900, "pay_prod_1")), "paid", "paid")

	demo := e2etest.Start(t, e2etest.NewClock(e2etest.T0))
	if r := demo.Call(t, "GET", "/api/v1/orders", tok, nil); r.Status != 200 || r.Body["demo_payments"] != true {
		t.Fatalf("the orders list with demo payments on: %s", r.Raw)
	}
}

// TestPaymentRetriedUnderOneReference: a provider that retries a failed
// payment under the same reference pays the order when the retry
// succeeds; the reference then answers paid.
func TestPaymentRetriedUnderOneReference(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0), e2etest.WithPayments(t))
	id := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	orders := e2etest.BuyConfirmed(t, s, id, "alice")
	e2etest.Outcome(t, s.Callback(t, e2etest.PaymentBody(orders[0], "failed", 12900, "pi_1")), "payment_failed", "confirmed")
	e2etest.Outcome(t, s.Callback(t, e2etest.PaymentBody(orders[0], "paid", 12900, "pi_1")), "paid", "paid")
	e2etest.Outcome(t, s.Callback(t, e2etest.PaymentBody(orders[0], "paid", 12900, "pi_1")), "paid", "paid")
	if got := e2etest.EventTypes(e2etest.OrderEvents(t, s, orders[0])); got != "order.confirmed,order.paid" {
		t.Fatalf("events: %s", got)
	}
	if recs := paymentsOf(t, s, orders[0]); len(recs) != 1 || recs[0].Outcome != "paid" {
		t.Fatalf("payments recorded: %+v; want pi_1 once, paid", recs)
	}
}
