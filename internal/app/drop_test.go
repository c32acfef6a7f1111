package app_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"
)

// liveDrop creates a drop open now (by the real clock) of one variant per stock given, one order
// per shopper, and returns its id and its variants' ids.
func (s *server) liveDrop(tb testing.TB, stocks ...int) (int64, []int64) {
	tb.Helper()
	variants := make([]map[string]any, len(stocks))
	for i, n := range stocks {
		variants[i] = map[string]any{"label": "EU " + strconv.Itoa(40+i), "stock_total": n}
	}
	r := s.call(tb, "POST", "/api/v1/admin/items", adminToken, map[string]any{
		"name": "Aurora runners, the drop", "price_cents": 12900, "per_user_limit": 1, "variants": variants,
		"starts_at": time.Now().Add(-time.Minute).Format(time.RFC3339Nano),
		"ends_at":   time.Now().Add(time.Hour).Format(time.RFC3339Nano),
	})
	if r.status != 201 {
		tb.Fatalf("create drop: %d %s", r.status, r.raw)
	}
	var ids []int64
	for _, v := range r.body["variants"].([]any) {
		ids = append(ids, int64(v.(map[string]any)["id"].(float64)))
	}
	return int64(r.body["id"].(float64)), ids
}

// buyVariant buys one unit of a variant with the body the shop page sends.
func (s *server) buyVariant(tb testing.TB, item, variant int64, token, key string) reply {
	tb.Helper()
	var hdr []string
	if key != "" {
		hdr = []string{"Idempotency-Key", key}
	}
	body := fmt.Sprintf(`{"variant_id":%d,"quantity":1}`, variant)
	return s.call(tb, "POST", "/api/v1/items/"+itoa(item)+"/purchase", token, body, hdr...)
}
