package app_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/webhook"
)

const (
	paymentSecret = "test-payment-secret-0123456789abcdef"
	callbackPath  = "/api/v1/payments/callback"
)

// withEvents has the server write its events to the outbox, for a receiver
// that takes them all: the tests read the outbox, where every event is
// written in the transaction of its change.
func withEvents(tb testing.TB) option {
	tb.Helper()
	return hooksTo(acceptingReceiver(tb), 0)
}

// withPayments is withEvents with payment callbacks checked against
// paymentSecret.
func withPayments(tb testing.TB) option {
	tb.Helper()
	events := withEvents(tb)
	return func(c *config.Config) { events(c); c.PaymentSecret = paymentSecret }
}

// paymentBody is a callback's body as the provider sends it.
func paymentBody(orderID, status string, amount int64, ref string) []byte {
	return mustJSON(map[string]any{"order_id": orderID, "status": status, "amount_cents": amount, "provider_ref": ref})
}

// callback sends body as the payment provider does, signed now with
// paymentSecret; hdr adds headers.
func (s *server) callback(tb testing.TB, body []byte, hdr ...string) reply {
	tb.Helper()
	sig := webhook.Sign([]byte(paymentSecret), time.Now(), body)
	return s.call(tb, "POST", callbackPath, "", body, append([]string{webhook.SignatureHeader, sig}, hdr...)...)
}

// event is one event the server wrote for the shop.
type event struct {
	Type string         `json:"type"`
	Data map[string]any `json:"data"`
}

// orderEvents are the events written about order id, in the order they
// are delivered.
func orderEvents(tb testing.TB, s *server, id string) []event {
	tb.Helper()
	var bodies []string
	if err := s.db.Gorm.Raw("SELECT body FROM outbox WHERE subject = ? ORDER BY seq", "order:"+id).Scan(&bodies).Error; err != nil {
		tb.Fatal(err)
	}
	out := make([]event, len(bodies))
	for i, b := range bodies {
		if err := json.Unmarshal([]byte(b), &out[i]); err != nil {
			tb.Fatalf("outbox body %s: %v", b, err)
		}
	}
	return out
}

// eventTypes lists evs' types, comma-separated.
func eventTypes(evs []event) string {
	types := make([]string, len(evs))
	for i, e := range evs {
		types[i] = e.Type
	}
	return strings.Join(types, ",")
}

// paymentRecord is a row of the payments table.
type paymentRecord struct {
	ProviderRef, OrderID, Status, Outcome string
	AmountCents, ExpectedCents            int64
}

// paymentsOf are the payments recorded for order id.
func paymentsOf(tb testing.TB, s *server, id string) []paymentRecord {
	tb.Helper()
	var rows []paymentRecord
	err := s.db.Gorm.Raw("SELECT provider_ref, order_id, status, outcome, amount_cents, expected_cents FROM payments "+
		"WHERE order_id = ? ORDER BY received_at, provider_ref", id).Scan(&rows).Error
	if err != nil {
		tb.Fatal(err)
	}
	return rows
}

// orderStatus is order id's status and cancel reason in MySQL.
func orderStatus(tb testing.TB, s *server, id string) (status, reason string) {
	tb.Helper()
	var row struct {
		Status       string
		CancelReason *string
	}
	if err := s.db.Gorm.Raw("SELECT status, cancel_reason FROM orders WHERE id = ?", id).Scan(&row).Error; err != nil {
		tb.Fatal(err)
	}
	if row.CancelReason != nil {
		reason = *row.CancelReason
	}
	return row.Status, reason
}

// outcome checks a callback's 200 answer: its outcome and the order's status.
func outcome(tb testing.TB, r reply, want, status string) {
	tb.Helper()
	o, _ := r.body["order"].(map[string]any)
	if r.status != 200 || r.str("outcome") != want || o["status"] != status {
		tb.Fatalf("callback: %d %s; want 200, outcome %s, order %s", r.status, r.raw, want, status)
	}
}

// TestPaymentCallbackSignature: only a body signed with the payment secret
// in the last five minutes pays, and whatever is refused changes nothing.
// The callback is the provider's: no session and no same-origin check.
func TestPaymentCallbackSignature(t *testing.T) {
	t.Parallel()
	s := start(t, newClock(t0), withPayments(t))
	id := s.sale(t, 5, 1, t0, t0.Add(time.Hour))
	oid := buyConfirmed(t, s, id, "alice")[0]
	body := paymentBody(oid, "paid", 12900, "pay_sig_1")
	signed := func(secret string, at time.Time, b []byte) string { return webhook.Sign([]byte(secret), at, b) }
	refused := []struct {
		name, sig string
		body      []byte
	}{
		{"no signature", "", body},
		{"wrong secret", signed("another-payment-secret-0123456789ab", time.Now(), body), body},
		{"tampered body", signed(paymentSecret, time.Now(), body), paymentBody(oid, "paid", 100, "pay_sig_1")},
		{"six minutes old", signed(paymentSecret, time.Now().Add(-6*time.Minute), body), body},
		{"six minutes ahead", signed(paymentSecret, time.Now().Add(6*time.Minute), body), body},
		{"malformed", "t=now,v1=zz", body},
	}
	for _, tt := range refused {
		var hdr []string
		if tt.sig != "" {
			hdr = []string{webhook.SignatureHeader, tt.sig}
		}
		r := s.call(t, "POST", callbackPath, "", tt.body, hdr...)
		if r.status != 401 || r.errCode() != "invalid_signature" {
			t.Errorf("%s: %d %s, want 401 invalid_signature", tt.name, r.status, r.raw)
		}
	}
	if st, _ := orderStatus(t, s, oid); st != "confirmed" || len(paymentsOf(t, s, oid)) != 0 || eventTypes(orderEvents(t, s, oid)) != "order.confirmed" {
		t.Fatalf("after refused callbacks: order %s, payments %v, events %s; want nothing changed",
			st, paymentsOf(t, s, oid), eventTypes(orderEvents(t, s, oid)))
	}
	// A provider's request from anywhere, even naming another origin, is
	// no cross-site forgery: its signature is its credential.
	r := s.callback(t, body, "Origin", "https://pay.example")
	outcome(t, r, "paid", "paid")
	if o := r.body["order"].(map[string]any); o["order_id"] != oid || o["variant_label"] != "Default" {
		t.Fatalf("the answer's order is not the order as GET shows it: %s", r.raw)
	}
	if got := eventTypes(orderEvents(t, s, oid)); got != "order.confirmed,order.paid" {
		t.Fatalf("events of the paid order: %s", got)
	}
	if st, _ := orderStatus(t, s, oid); st != "paid" {
		t.Fatalf("order %s after a valid callback", st)
	}
}

// TestPaymentCallbackBody: the body is read strictly; a body no payment
// has is refused before anything is looked up, an unknown order is 404,
// and neither records a payment.
func TestPaymentCallbackBody(t *testing.T) {
	t.Parallel()
	s := start(t, newClock(t0), withPayments(t))
	id := s.sale(t, 5, 1, t0, t0.Add(time.Hour))
	oid := buyConfirmed(t, s, id, "alice")[0]
	tests := []struct {
		name string
		body string
		want want
	}{
		{"not JSON", `{"order_id":`, want{400, "invalid_request", ""}},
		{"unknown field", `{"order_id":"` + oid + `","status":"paid","amount_cents":12900,"provider_ref":"r","currency":"usd"}`, want{400, "invalid_request", "currency"}},
		{"missing amount", `{"order_id":"` + oid + `","status":"paid","provider_ref":"r"}`, want{400, "invalid_request", "amount_cents"}},
		{"amount as a string", `{"order_id":"` + oid + `","status":"paid","amount_cents":"12900","provider_ref":"r"}`, want{400, "invalid_request", "amount_cents"}},
		{"unknown status", string(paymentBody(oid, "refunded", 12900, "r")), want{400, "invalid_payment", "status"}},
		{"negative amount", string(paymentBody(oid, "paid", -1, "r")), want{400, "invalid_payment", "amount_cents"}},
		{"empty provider_ref", string(paymentBody(oid, "paid", 12900, "")), want{400, "invalid_payment", "provider_ref"}},
		{"provider_ref over 128 bytes", string(paymentBody(oid, "paid", 12900, strings.Repeat("r", 129))), want{400, "invalid_payment", "provider_ref"}},
		{"unknown order", string(paymentBody("01JXXXXXXXXXXXXXXXXXXXXXXX", "paid", 12900, "r")), want{404, "order_not_found", ""}},
		{"over 16 KiB", string(paymentBody(oid, "paid", 12900, strings.Repeat("r", 16<<10))), want{413, "payload_too_large", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { check(t, s.callback(t, []byte(tt.body)), tt.want) })
	}
	var n int64
	if err := s.db.Gorm.Table("payments").Count(&n).Error; err != nil || n != 0 {
		t.Fatalf("%d payments recorded (%v), want none", n, err)
	}
	if st, _ := orderStatus(t, s, oid); st != "confirmed" {
		t.Fatalf("order %s after refused callbacks", st)
	}
	// 128 bytes is the longest reference, and it pays.
	outcome(t, s.callback(t, paymentBody(oid, "paid", 12900, strings.Repeat("r", 128))), "paid", "paid")
}

// TestPaymentCallbackNotConfigured: a server without a payment secret
// refuses every callback, however signed.
func TestPaymentCallbackNotConfigured(t *testing.T) {
	t.Parallel()
	s := start(t, newClock(t0))
	check(t, s.callback(t, paymentBody("01JXXXXXXXXXXXXXXXXXXXXXXX", "paid", 1, "r")), want{503, "payments_not_configured", ""})
}
