package e2etest

import (
	"testing"
	"time"
)

// RoomSale creates a sale of stock units (one per shopper) with a waiting
// room admitting rate shoppers a second, opening at opens.
func RoomSale(tb testing.TB, s *Server, stock, rate int, opens time.Time) int64 {
	tb.Helper()
	r := s.Call(tb, "POST", "/api/v1/admin/items", AdminToken, map[string]any{
		"name": "Storm jacket, waiting room", "price_cents": 9900, "stock_total": stock, "per_user_limit": 1,
		"room_rate": rate, "starts_at": opens.Format(time.RFC3339Nano), "ends_at": opens.Add(time.Hour).Format(time.RFC3339Nano),
	})
	if r.Status != 201 || r.Body["room_rate"] != float64(rate) {
		tb.Fatalf("create room sale: %d %s", r.Status, r.Raw)
	}
	return int64(r.Body["id"].(float64))
}

// BuyAdmitted fetches the shopper's admission token and buys with it.
func BuyAdmitted(t *testing.T, s *Server, id int64, roomPath, tok string) {
	t.Helper()
	r := s.Call(t, "GET", roomPath, tok, nil)
	if r.Str("state") != "admitted" || r.Str("token") == "" {
		t.Fatalf("expected admitted: %s", r.Raw)
	}
	Check(t, s.Call(t, "POST", "/api/v1/items/"+Itoa(id)+"/purchase", tok, nil, "X-Purchase-Token", r.Str("token")),
		Want{202, "", ""})
}
