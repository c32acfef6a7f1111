package payments

import (
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/webhook"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// paymentRecord is a row of the payments table.
type paymentRecord struct {
	ProviderRef, OrderID, Status, Outcome string
	AmountCents, ExpectedCents            int64
}

// paymentsOf are the payments recorded for order id.
func paymentsOf(tb testing.TB, s *e2etest.Server, id string) []paymentRecord {
	tb.Helper()
	var rows []paymentRecord
	err := s.Db.Gorm.Raw("SELECT provider_ref, order_id, status, outcome, amount_cents, expected_cents FROM payments "+
		"WHERE order_id = ? ORDER BY received_at, provider_ref", id).Scan(&rows).Error
	if err != nil {
		tb.Fatal(err)
	}
	return rows
}

// orderStatus is order id's status and cancel reason in MySQL.
func orderStatus(tb testing.TB, s *e2etest.Server, id string) (status, reason string) {
	tb.Helper()
	var row struct {
		Status       string
		CancelReason *string
	}
	if err := s.Db.Gorm.Raw("SELECT status, cancel_reason FROM orders WHERE id = ?", id).Scan(&row).Error; err != nil {
		tb.Fatal(err)
	}
	if row.CancelReason != nil {
		reason = *row.CancelReason
	}
	return row.Status, reason
}

// TestPaymentCallbackSignature: only a body signed with the payment secret
// in the last five minutes pays, and whatever is refused changes nothing.
// The callback is the provider's: no session and no same-origin check.
func TestPaymentCallbackSignature(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0), e2etest.WithPayments(t))
	id := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	oid := e2etest.BuyConfirmed(t, s, id, "alice")[0]
	body := e2etest.PaymentBody(oid, "paid", 12900, "pay_sig_1")
	signed := func(secret string, at time.Time, b []byte) string { return webhook.Sign([]byte(secret), at, b) }
	refused := []struct {
		name, sig string
		body      []byte
	}{
		{"no signature", "", body},
		{"wrong secret", signed("another-payment-secret-0123456789ab", time.Now(), body), body},
		{"tampered body", signed(e2etest.PaymentSecret, time.Now(), body), e2etest.PaymentBody(oid, "paid", 100, "pay_sig_1")},
		{"six minutes old", signed(e2etest.PaymentSecret, time.Now().Add(-6*time.Minute), body), body},
		{"six minutes ahead", signed(e2etest.PaymentSecret, time.Now().Add(6*time.Minute), body), body},
		{"malformed", "t=now,v1=zz", body},
	}
	for _, tt := range refused {
		var hdr []string
		if tt.sig != "" {
			hdr = []string{webhook.SignatureHeader, tt.sig}
		}
		r := s.Call(t, "POST", e2etest.CallbackPath, "", tt.body, hdr...)
		if r.Status != 401 || r.ErrCode() != "invalid_signature" {
			t.Errorf("%s: %d %s, want 401 invalid_signature", tt.name, r.Status, r.Raw)
		}
	}
	if st, _ := orderStatus(t, s, oid); st != "confirmed" || len(paymentsOf(t, s, oid)) != 0 || e2etest.EventTypes(e2etest.OrderEvents(t, s, oid)) != "order.confirmed" {
		t.Fatalf("after refused callbacks: order %s, payments %v, events %s; want nothing changed",
			st, paymentsOf(t, s, oid), e2etest.EventTypes(e2etest.OrderEvents(t, s, oid)))
	}
	// A provider's request from anywhere, even naming another origin, is
	// no cross-site forgery: its signature is its credential.
	r := s.Callback(t, body, "Origin", "https://pay.example")
	e2etest.Outcome(t, r, "paid", "paid")
	if o := r.Body["order"].(map[string]any); o["order_id"] != oid || o["variant_label"] != "Default" {
		t.Fatalf("the answer's order is not the order as GET shows it: %s", r.Raw)
	}
	if got := e2etest.EventTypes(e2etest.OrderEvents(t, s, oid)); got != "order.confirmed,order.paid" {
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
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0), e2etest.WithPayments(t))
	id := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	oid := e2etest.BuyConfirmed(t, s, id, "alice")[0]
	tests := []struct {
		name string
		body string
		want e2etest.Want
	}{
		{"not JSON", `{"order_id":`, e2etest.Want{Status: 400, Code: "invalid_request"}},
		{"unknown field", `{"order_id":"` + oid + `","status":"paid","amount_cents":12900,"provider_ref":"r","currency":"usd"}`, e2etest.Want{Status: 400, Code: "invalid_request", Field: "currency"}},
		{"missing amount", `{"order_id":"` + oid + `","status":"paid","provider_ref":"r"}`, e2etest.Want{Status: 400, Code: "invalid_request", Field: "amount_cents"}},
		{"amount as a string", `{"order_id":"` + oid + `","status":"paid","amount_cents":"12900","provider_ref":"r"}`, e2etest.Want{Status: 400, Code: "invalid_request", Field: "amount_cents"}},
		{"unknown status", string(e2etest.PaymentBody(oid, "refunded", 12900, "r")), e2etest.Want{Status: 400, Code: "invalid_payment", Field: "status"}},
		{"negative amount", string(e2etest.PaymentBody(oid, "paid", -1, "r")), e2etest.Want{Status: 400, Code: "invalid_payment", Field: "amount_cents"}},
		{"empty provider_ref", string(e2etest.PaymentBody(oid, "paid", 12900, "")), e2etest.Want{Status: 400, Code: "invalid_payment", Field: "provider_ref"}},
		{"provider_ref over 128 bytes", string(e2etest.PaymentBody(oid, "paid", 12900, strings.Repeat("r", 129))), e2etest.Want{Status: 400, Code: "invalid_payment", Field: "provider_ref"}},
		{"unknown order", string(e2etest.PaymentBody("01JXXXXXXXXXXXXXXXXXXXXXXX", "paid", 12900, "r")), e2etest.Want{Status: 404, Code: "order_not_found"}},
		{"over 16 KiB", string(e2etest.PaymentBody(oid, "paid", 12900, strings.Repeat("r", 16<<10))), e2etest.Want{Status: 413, Code: "payload_too_large"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { e2etest.Check(t, s.Callback(t, []byte(tt.body)), tt.want) })
	}
	var n int64
	if err := s.Db.Gorm.Table("payments").Count(&n).Error; err != nil || n != 0 {
		t.Fatalf("%d payments recorded (%v), want none", n, err)
	}
	if st, _ := orderStatus(t, s, oid); st != "confirmed" {
		t.Fatalf("order %s after refused callbacks", st)
	}
	// 128 bytes is the longest reference, and it pays.
	e2etest.Outcome(t, s.Callback(t, e2etest.PaymentBody(oid, "paid", 12900, strings.Repeat("r", 128))), "paid", "paid")
}

// TestPaymentCallbackNotConfigured: a server without a payment secret
// refuses every callback, however signed.
func TestPaymentCallbackNotConfigured(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0))
	e2etest.Check(t, s.Callback(t, e2etest.PaymentBody("01JXXXXXXXXXXXXXXXXXXXXXXX", "paid", 1, "r")), e2etest.Want{Status: 503, Code: "payments_not_configured"})
}
