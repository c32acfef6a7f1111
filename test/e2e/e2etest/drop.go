package e2etest

import (
	"fmt"
	"strconv"
	"testing"
	"time"
)

// LiveDrop creates a drop open now (by the real clock) of one variant per stock given, one order
// per shopper, and returns its id and its variants' ids.
func (s *Server) LiveDrop(tb testing.TB, stocks ...int) (int64, []int64) {
	tb.Helper()
	variants := make([]map[string]any, len(stocks))
	for i, n := range stocks {
		variants[i] = map[string]any{"label": "EU " + strconv.Itoa(40+i), "stock_total": n}
	}
	r := s.Call(tb, "POST", "/api/v1/admin/items", AdminToken, map[string]any{
		"name": "Aurora runners, the drop", "price_cents": 12900, "per_user_limit": 1, "variants": variants,
		"starts_at": time.Now().Add(-time.Minute).Format(time.RFC3339Nano),
		"ends_at":   time.Now().Add(time.Hour).Format(time.RFC3339Nano),
	})
	if r.Status != 201 {
		tb.Fatalf("create drop: %d %s", r.Status, r.Raw)
	}
	var ids []int64
	for _, v := range r.Body["variants"].([]any) {
		ids = append(ids, int64(v.(map[string]any)["id"].(float64)))
	}
	return int64(r.Body["id"].(float64)), ids
}

// BuyVariant buys one unit of a variant with the body the shop page sends.
func (s *Server) BuyVariant(tb testing.TB, item, variant int64, token, key string) Reply {
	tb.Helper()
	var hdr []string
	if key != "" {
		hdr = []string{"Idempotency-Key", key}
	}
	body := fmt.Sprintf(`{"variant_id":%d,"quantity":1}`, variant)
	return s.Call(tb, "POST", "/api/v1/items/"+Itoa(item)+"/purchase", token, body, hdr...)
}
