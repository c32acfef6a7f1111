package e2etest

import (
	"encoding/json"
	"fmt"
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

// BuyDrop buys qty of variant for user and waits until the order is in
// MySQL; it returns the order's id.
func (s *Server) BuyDrop(tb testing.TB, item, variant int64, user string, qty int) string {
	tb.Helper()
	body := fmt.Sprintf(`{"variant_id":%d,"quantity":%d}`, variant, qty)
	r := s.Call(tb, "POST", "/api/v1/items/"+Itoa(item)+"/purchase", MintToken(tb, user), body)
	if r.Status != 202 {
		tb.Fatalf("buy %d of variant %d: %d %s", qty, variant, r.Status, r.Raw)
	}
	s.Settle(tb, item)
	return r.Str("order_id")
}

// CallbackAt is callback signed at the provider's time at.
func (s *Server) CallbackAt(tb testing.TB, at time.Time, body []byte) Reply {
	tb.Helper()
	return s.Call(tb, "POST", CallbackPath, "", body, webhook.SignatureHeader, webhook.Sign([]byte(PaymentSecret), at, body))
}

// WithPersisters starts a second server on s's MySQL database and Redis
// keys whose persisters write what s queued.
func (s *Server) WithPersisters(tb testing.TB, clk interface{ Now() time.Time }) {
	tb.Helper()
	cfg := s.Cfg
	cfg.HTTPAddr, cfg.Workers = "127.0.0.1:0", 2
	Launch(tb, clk, Quiet(), cfg, s.Db)
}

// PricedSale creates a sale whose unit costs price, of the drop's sizes if
// any are given, and returns its id and its variants' ids by label.
func (s *Server) PricedSale(tb testing.TB, price int64, sizes ...map[string]any) (int64, map[string]int64) {
	tb.Helper()
	body := DropBody(T0, sizes...)
	body["price_cents"] = price
	if len(sizes) == 0 {
		delete(body, "variants")
		body["stock_total"] = 1000
	}
	r := s.Call(tb, "POST", "/api/v1/admin/items", AdminToken, body)
	if r.Status != 201 {
		tb.Fatalf("create sale: %d %s", r.Status, r.Raw)
	}
	return int64(Num(r.Body, "id")), VariantIDs(tb, r)
}

// BuyAt buys qty units (of variant, unless 0) and checks the 202 names
// the price the shopper got: unit each, unit × qty in all. It returns the
// order's id.
func (s *Server) BuyAt(tb testing.TB, item, variant int64, user, key string, qty int, unit int64) string {
	tb.Helper()
	body := fmt.Sprintf(`{"quantity":%d}`, qty)
	if variant != 0 {
		body = fmt.Sprintf(`{"variant_id":%d,"quantity":%d}`, variant, qty)
	}
	r := s.Call(tb, "POST", "/api/v1/items/"+Itoa(item)+"/purchase", MintToken(tb, user), body, "Idempotency-Key", key)
	if r.Status != 202 || !PricedAt(r.Body, unit, qty) {
		tb.Fatalf("%s buys %d: %d %s; want 202 at %d a unit", user, qty, r.Status, r.Raw, unit)
	}
	return r.Str("order_id")
}

// PricedAt says whether an order as the API shows it costs unit each.
func PricedAt(o map[string]any, unit int64, qty int) bool {
	return o["unit_price_cents"] == float64(unit) && o["amount_cents"] == float64(unit*int64(qty))
}

// BuyConfirmed buys for each user and waits until the orders are in MySQL.
func BuyConfirmed(t *testing.T, s *Server, id int64, users ...string) []string {
	t.Helper()
	ids := make([]string, len(users))
	for i, u := range users {
		r := s.Call(t, "POST", "/api/v1/items/"+Itoa(id)+"/purchase", MintToken(t, u), nil)
		Check(t, r, Want{202, "", ""})
		ids[i] = r.Str("order_id")
	}
	s.Settle(t, id)
	return ids
}
