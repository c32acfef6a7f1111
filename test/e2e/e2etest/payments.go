package e2etest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/webhook"
)

const (
	PaymentSecret = "test-payment-secret-0123456789abcdef"
	CallbackPath  = "/api/v1/payments/callback"
)

// WithEvents has the server write its events to the outbox, for a receiver
// that takes them all: the tests read the outbox, where every event is
// written in the transaction of its change.
func WithEvents(tb testing.TB) Option {
	tb.Helper()
	return HooksTo(AcceptingReceiver(tb), 0)
}

// WithPayments is withEvents with payment callbacks checked against
// paymentSecret.
func WithPayments(tb testing.TB) Option {
	tb.Helper()
	events := WithEvents(tb)
	return func(c *config.Config) { events(c); c.PaymentSecret = PaymentSecret }
}

// PaymentBody is a callback's body as the provider sends it.
func PaymentBody(orderID, status string, amount int64, ref string) []byte {
	return MustJSON(map[string]any{"order_id": orderID, "status": status, "amount_cents": amount, "provider_ref": ref})
}

// Callback sends body as the payment provider does, signed now with
// paymentSecret; hdr adds headers.
func (s *Server) Callback(tb testing.TB, body []byte, hdr ...string) Reply {
	tb.Helper()
	sig := webhook.Sign([]byte(PaymentSecret), time.Now(), body)
	return s.Call(tb, "POST", CallbackPath, "", body, append([]string{webhook.SignatureHeader, sig}, hdr...)...)
}

// Event is one event the server wrote for the shop.
type Event struct {
	Type string         `json:"type"`
	Data map[string]any `json:"data"`
}

// OrderEvents are the events written about order id, in the order they
// are delivered.
func OrderEvents(tb testing.TB, s *Server, id string) []Event {
	tb.Helper()
	var bodies []string
	if err := s.Db.Gorm.Raw("SELECT body FROM outbox WHERE subject = ? ORDER BY seq", "order:"+id).Scan(&bodies).Error; err != nil {
		tb.Fatal(err)
	}
	out := make([]Event, len(bodies))
	for i, b := range bodies {
		if err := json.Unmarshal([]byte(b), &out[i]); err != nil {
			tb.Fatalf("outbox body %s: %v", b, err)
		}
	}
	return out
}

// EventTypes lists evs' types, comma-separated.
func EventTypes(evs []Event) string {
	types := make([]string, len(evs))
	for i, e := range evs {
		types[i] = e.Type
	}
	return strings.Join(types, ",")
}

// Outcome checks a callback's 200 answer: its outcome and the order's status.
func Outcome(tb testing.TB, r Reply, want, status string) {
	tb.Helper()
	o, _ := r.Body["order"].(map[string]any)
	if r.Status != 200 || r.Str("outcome") != want || o["status"] != status {
		tb.Fatalf("callback: %d %s; want 200, outcome %s, order %s", r.Status, r.Raw, want, status)
	}
}
