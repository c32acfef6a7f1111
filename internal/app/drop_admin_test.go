package app_test

import (
	"strings"
	"testing"
	"time"
)

// TestChangeDropVariants: sizes are added and removed before the opening
// only; a size's stock changes at any time with the guarantees a sale's
// stock change has, in both stores.
func TestChangeDropVariants(t *testing.T) {
	t.Parallel()
	clk := newClock(t0.Add(-time.Minute))
	s := start(t, clk)
	r := s.call(t, "POST", "/api/v1/admin/items", adminToken, dropBody(t0, size("EU 41", 2), size("EU 42", 3)))
	check(t, r, want{201, "", ""})
	id, ids := int64(r.body["id"].(float64)), variantIDs(t, r)
	item := "/api/v1/admin/items/" + itoa(id)
	variant := func(v int64) string { return item + "/variants/" + itoa(v) }
	other := s.sale(t, 4, 1, t0, t0.Add(time.Hour))
	otherVariant := variantIDs(t, s.call(t, "GET", "/api/v1/items/"+itoa(other), "", nil))["Default"]

	added := s.call(t, "POST", item+"/variants", adminToken, size("EU 43", 4, "price_cents", 14900))
	check(t, added, want{201, "", ""})
	ids = variantIDs(t, added)
	if added.body["stock_total"].(float64) != 9 || len(ids) != 3 {
		t.Fatalf("after adding EU 43: %s", added.raw)
	}
	check(t, s.call(t, "POST", item+"/variants", adminToken, size("eu 43", 1)), want{409, "label_taken", ""})
	check(t, s.call(t, "POST", item+"/variants", adminToken, map[string]any{"label": "EU 44"}), want{400, "invalid_request", ""})
	check(t, s.call(t, "PATCH", variant(ids["EU 41"]), adminToken, map[string]any{"label": "EU 42"}), want{409, "label_taken", ""})
	check(t, s.call(t, "PATCH", item+"/variants/"+itoa(otherVariant), adminToken, map[string]any{"stock_total": 1}), want{404, "variant_not_found", ""})
	check(t, s.call(t, "PATCH", item+"/variants/x", adminToken, map[string]any{"stock_total": 1}), want{404, "variant_not_found", ""})
	check(t, s.call(t, "PATCH", item, adminToken, map[string]any{"stock_total": 20}), want{400, "invalid_request", "stock_total"})
	check(t, s.call(t, "PATCH", item, adminToken, map[string]any{"variants": []any{}}), want{400, "invalid_request", "variants"})
	removed := s.call(t, "DELETE", variant(ids["EU 41"]), adminToken, nil)
	check(t, removed, want{200, "", ""})
	if removed.body["stock_total"].(float64) != 7 || variantOf(removed, ids["EU 41"]) != nil {
		t.Fatalf("after removing EU 41: %s", removed.raw)
	}
	check(t, s.call(t, "DELETE", variant(ids["EU 41"]), adminToken, nil), want{404, "variant_not_found", ""})
	check(t, s.call(t, "DELETE", item+"/variants/"+itoa(otherVariant), adminToken, nil), want{404, "variant_not_found", ""})
	check(t, s.call(t, "DELETE", "/api/v1/admin/items/"+itoa(other)+"/variants/"+itoa(otherVariant), adminToken, nil),
		want{409, "variant_count", ""})

	clk.Set(t0)
	buy := "/api/v1/items/" + itoa(id) + "/purchase"
	buyer := s.login(t, "ann")
	check(t, s.call(t, "POST", buy, buyer, `{"variant_id":`+itoa(ids["EU 41"])+`,"quantity":1}`), want{404, "variant_not_found", ""})
	check(t, s.call(t, "POST", buy, buyer, `{"variant_id":`+itoa(ids["EU 43"])+`,"quantity":2}`), want{202, "", ""})
	check(t, s.call(t, "POST", item+"/variants", adminToken, size("EU 45", 1)), want{409, "sale_opened", ""})
	check(t, s.call(t, "DELETE", variant(ids["EU 42"]), adminToken, nil), want{409, "sale_opened", ""})
	check(t, s.call(t, "PATCH", variant(ids["EU 43"]), adminToken, map[string]any{"stock_total": 1}), want{409, "stock_conflict", ""})
	// Moving the opening later does not free a size that orders hold,
	// persisted or still queued.
	later := map[string]any{"starts_at": t0.Add(10 * time.Minute).Format(time.RFC3339Nano)}
	check(t, s.call(t, "PATCH", item, adminToken, later), want{200, "", ""})
	check(t, s.call(t, "DELETE", variant(ids["EU 43"]), adminToken, nil), want{409, "sale_opened", ""})
	s.settle(t, id)
	check(t, s.call(t, "DELETE", variant(ids["EU 43"]), adminToken, nil), want{409, "sale_opened", ""})
	check(t, s.call(t, "PATCH", item, adminToken, map[string]any{"starts_at": t0.Format(time.RFC3339Nano)}), want{200, "", ""})
	raised := s.call(t, "PATCH", variant(ids["EU 43"]), adminToken, map[string]any{"stock_total": 6, "label": "EU 43½", "price_cents": nil})
	check(t, raised, want{200, "", ""})
	v := variantOf(raised, ids["EU 43"])
	if v["stock_total"].(float64) != 6 || v["stock_left"].(float64) != 4 || v["label"] != "EU 43½" || v["price_cents"].(float64) != 12900 {
		t.Fatalf("EU 43 after raising its stock = %v", v)
	}
	if raised.body["stock_total"].(float64) != 9 || raised.body["stock_left"].(float64) != 7 {
		t.Fatalf("drop after raising EU 43 = %s", raised.raw)
	}
	st := s.settle(t, id)
	if st.body["consistent"] != true || st.body["stock_mysql"].(float64) != 7 {
		t.Fatalf("stats = %s", st.raw)
	}
	orders := s.call(t, "GET", "/api/v1/orders", buyer, nil)
	if !strings.Contains(orders.raw, `"variant_label":"EU 43½"`) {
		t.Fatalf("orders = %s, want the renamed size", orders.raw)
	}
}
