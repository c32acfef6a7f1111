package e2etest

import (
	"fmt"
	"testing"
)

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
