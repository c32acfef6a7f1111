package drop

import (
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestChangeDropVariants: sizes are added and removed before the opening
// only; a size's stock changes at any time with the guarantees a sale's
// stock change has, in both stores.
func TestChangeDropVariants(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0.Add(-time.Minute))
	s := e2etest.Start(t, clk)
	r := s.Call(t, "POST", "/api/v1/admin/items", e2etest.AdminToken, e2etest.DropBody(e2etest.T0, e2etest.Size("EU 41", 2), e2etest.Size("EU 42", 3)))
	e2etest.Check(t, r, e2etest.Want{Status: 201})
	id, ids := int64(r.Body["id"].(float64)), e2etest.VariantIDs(t, r)
	item := "/api/v1/admin/items/" + e2etest.Itoa(id)
	variant := func(v int64) string { return item + "/variants/" + e2etest.Itoa(v) }
	other := s.Sale(t, 4, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	otherVariant := e2etest.VariantIDs(t, s.Call(t, "GET", "/api/v1/items/"+e2etest.Itoa(other), "", nil))["Default"]

	added := s.Call(t, "POST", item+"/variants", e2etest.AdminToken, e2etest.Size("EU 43", 4, "price_cents", 14900))
	e2etest.Check(t, added, e2etest.Want{Status: 201})
	ids = e2etest.VariantIDs(t, added)
	if added.Body["stock_total"].(float64) != 9 || len(ids) != 3 {
		t.Fatalf("after adding EU 43: %s", added.Raw)
	}
	e2etest.Check(t, s.Call(t, "POST", item+"/variants", e2etest.AdminToken, e2etest.Size("eu 43", 1)), e2etest.Want{Status: 409, Code: "label_taken"})
	e2etest.Check(t, s.Call(t, "POST", item+"/variants", e2etest.AdminToken, map[string]any{"label": "EU 44"}), e2etest.Want{Status: 400, Code: "invalid_request"})
	e2etest.Check(t, s.Call(t, "PATCH", variant(ids["EU 41"]), e2etest.AdminToken, map[string]any{"label": "EU 42"}), e2etest.Want{Status: 409, Code: "label_taken"})
	e2etest.Check(t, s.Call(t, "PATCH", item+"/variants/"+e2etest.Itoa(otherVariant), e2etest.AdminToken, map[string]any{"stock_total": 1}), e2etest.Want{Status: 404, Code: "variant_not_found"})
	e2etest.Check(t, s.Call(t, "PATCH", item+"/variants/x", e2etest.AdminToken, map[string]any{"stock_total": 1}), e2etest.Want{Status: 404, Code: "variant_not_found"})
	e2etest.Check(t, s.Call(t, "PATCH", item, e2etest.AdminToken, map[string]any{"stock_total": 20}), e2etest.Want{Status: 400, Code: "invalid_request", Field: "stock_total"})
	e2etest.Check(t, s.Call(t, "PATCH", item, e2etest.AdminToken, map[string]any{"variants": []any{}}), e2etest.Want{Status: 400, Code: "invalid_request", Field: "variants"})
	removed := s.Call(t, "DELETE", variant(ids["EU 41"]), e2etest.AdminToken, nil)
	e2etest.Check(t, removed, e2etest.Want{Status: 200})
	if removed.Body["stock_total"].(float64) != 7 || variantOf(removed, ids["EU 41"]) != nil {
		t.Fatalf("after removing EU 41: %s", removed.Raw)
	}
	e2etest.Check(t, s.Call(t, "DELETE", variant(ids["EU 41"]), e2etest.AdminToken, nil), e2etest.Want{Status: 404, Code: "variant_not_found"})
	e2etest.Check(t, s.Call(t, "DELETE", item+"/variants/"+e2etest.Itoa(otherVariant), e2etest.AdminToken, nil), e2etest.Want{Status: 404, Code: "variant_not_found"})
	e2etest.Check(t, s.Call(t, "DELETE", "/api/v1/admin/items/"+e2etest.Itoa(other)+"/variants/"+e2etest.Itoa(otherVariant), e2etest.AdminToken, nil),
		e2etest.Want{Status: 409, Code: "variant_count"})

	clk.Set(e2etest.T0)
	buy := "/api/v1/items/" + e2etest.Itoa(id) + "/purchase"
	buyer := s.Login(t, "ann")
	e2etest.Check(t, s.Call(t, "POST", buy, buyer, `{"variant_id":`+e2etest.Itoa(ids["EU 41"])+`,"quantity":1}`), e2etest.Want{Status: 404, Code: "variant_not_found"})
	e2etest.Check(t, s.Call(t, "POST", buy, buyer, `{"variant_id":`+e2etest.Itoa(ids["EU 43"])+`,"quantity":2}`), e2etest.Want{Status: 202})
	e2etest.Check(t, s.Call(t, "POST", item+"/variants", e2etest.AdminToken, e2etest.Size("EU 45", 1)), e2etest.Want{Status: 409, Code: "sale_opened"})
	e2etest.Check(t, s.Call(t, "DELETE", variant(ids["EU 42"]), e2etest.AdminToken, nil), e2etest.Want{Status: 409, Code: "sale_opened"})
	e2etest.Check(t, s.Call(t, "PATCH", variant(ids["EU 43"]), e2etest.AdminToken, map[string]any{"stock_total": 1}), e2etest.Want{Status: 409, Code: "stock_conflict"})
	// Moving the opening later does not free a size that orders hold,
	// persisted or still queued.
	later := map[string]any{"starts_at": e2etest.T0.Add(10 * time.Minute).Format(time.RFC3339Nano)}
	e2etest.Check(t, s.Call(t, "PATCH", item, e2etest.AdminToken, later), e2etest.Want{Status: 200})
	e2etest.Check(t, s.Call(t, "DELETE", variant(ids["EU 43"]), e2etest.AdminToken, nil), e2etest.Want{Status: 409, Code: "sale_opened"})
	s.Settle(t, id)
	e2etest.Check(t, s.Call(t, "DELETE", variant(ids["EU 43"]), e2etest.AdminToken, nil), e2etest.Want{Status: 409, Code: "sale_opened"})
	e2etest.Check(t, s.Call(t, "PATCH", item, e2etest.AdminToken, map[string]any{"starts_at": e2etest.T0.Format(time.RFC3339Nano)}), e2etest.Want{Status: 200})
	raised := s.Call(t, "PATCH", variant(ids["EU 43"]), e2etest.AdminToken, map[string]any{"stock_total": 6, "label": "EU 43½", "price_cents": nil})
	e2etest.Check(t, raised, e2etest.Want{Status: 200})
	v := variantOf(raised, ids["EU 43"])
	if v["stock_total"].(float64) != 6 || v["stock_left"].(float64) != 4 || v["label"] != "EU 43½" || v["price_cents"].(float64) != 12900 {
		t.Fatalf("EU 43 after raising its stock = %v", v)
	}
	if raised.Body["stock_total"].(float64) != 9 || raised.Body["stock_left"].(float64) != 7 {
		t.Fatalf("drop after raising EU 43 = %s", raised.Raw)
	}
	st := s.Settle(t, id)
	if st.Body["consistent"] != true || st.Body["stock_mysql"].(float64) != 7 {
		t.Fatalf("stats = %s", st.Raw)
	}
	orders := s.Call(t, "GET", "/api/v1/orders", buyer, nil)
	if !strings.Contains(orders.Raw, `"variant_label":"EU 43½"`) {
		t.Fatalf("orders = %s, want the renamed size", orders.Raw)
	}
}
