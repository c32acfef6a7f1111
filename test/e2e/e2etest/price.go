package e2etest

import (
	"fmt"
	"testing"
	"time"
)

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
