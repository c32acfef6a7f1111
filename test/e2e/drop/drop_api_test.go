package drop

import (
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/test/e2e/e2etest"
)

func variantOf(r e2etest.Reply, id int64) map[string]any {
	vs, _ := r.Body["variants"].([]any)
	for _, v := range vs {
		if m := v.(map[string]any); int64(m["id"].(float64)) == id {
			return m
		}
	}
	return nil
}

func TestCreateDrop(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0.Add(-time.Minute)))
	r := s.Call(t, "POST", "/api/v1/admin/items", e2etest.AdminToken, e2etest.DropBody(e2etest.T0,
		e2etest.Size("EU 41", 3), e2etest.Size("EU 42", 5, "price_cents", 13900, "per_user_limit", 1),
		e2etest.Size("EU 43", 2, "image_url", "https://cdn.example.com/aurora-43.png")))
	e2etest.Check(t, r, e2etest.Want{Status: 201})
	ids := e2etest.VariantIDs(t, r)
	if r.Body["stock_total"].(float64) != 10 || r.Body["stock_left"].(float64) != 10 || len(ids) != 3 ||
		r.Str("image_url") != "/static/img/aurora.svg" {
		t.Fatalf("created drop = %s", r.Raw)
	}
	v42 := variantOf(r, ids["EU 42"])
	if v42["price_cents"].(float64) != 13900 || v42["per_user_limit"].(float64) != 1 || v42["stock_left"].(float64) != 5 ||
		v42["status"] != "upcoming" {
		t.Fatalf("EU 42 = %v", v42)
	}
	if v41 := variantOf(r, ids["EU 41"]); v41["price_cents"].(float64) != 12900 || v41["per_user_limit"].(float64) != 2 {
		t.Fatalf("EU 41 should take the sale's price and limit: %v", v41)
	}
	list := s.Call(t, "GET", "/api/v1/items", "", nil)
	if !strings.Contains(list.Raw, `"label":"EU 43"`) || !strings.Contains(list.Raw, "aurora-43.png") {
		t.Fatalf("shop list lacks the variants: %s", list.Raw)
	}
	plain := s.Call(t, "GET", "/api/v1/items/"+e2etest.Itoa(s.Sale(t, 4, 1, e2etest.T0, e2etest.T0.Add(time.Hour))), "", nil)
	if vs := e2etest.VariantIDs(t, plain); len(vs) != 1 || vs["Default"] == 0 {
		t.Fatalf("a sale created without variants has %v, want one Default", vs)
	}

	bad := func(name string, body map[string]any, field string) {
		t.Run(name, func(t *testing.T) {
			e2etest.Check(t, s.Call(t, "POST", "/api/v1/admin/items", e2etest.AdminToken, body), e2etest.Want{Status: 400, Code: "invalid_request", Field: field})
		})
	}
	withTotal := e2etest.DropBody(e2etest.T0, e2etest.Size("EU 41", 3), e2etest.Size("EU 42", 2))
	withTotal["stock_total"] = 5 // the sum: it says nothing new
	e2etest.Check(t, s.Call(t, "POST", "/api/v1/admin/items", e2etest.AdminToken, withTotal), e2etest.Want{Status: 201})
	withTotal["stock_total"] = 4
	bad("stock_total beside variants, not their sum", withTotal, "stock_total")
	bad("two labels alike", e2etest.DropBody(e2etest.T0, e2etest.Size("EU 41", 3), e2etest.Size("eu 41", 3)), "variants[1].label")
	bad("no variants", e2etest.DropBody(e2etest.T0), "variants")
	bad("label too long", e2etest.DropBody(e2etest.T0, e2etest.Size(strings.Repeat("x", 41), 3)), "variants[0].label")
	bad("empty label", e2etest.DropBody(e2etest.T0, e2etest.Size("", 3)), "variants[0].label")
	bad("no stock", e2etest.DropBody(e2etest.T0, e2etest.Size("EU 41", 0)), "variants[0].stock_total")
	bad("variant limit above the sale's", e2etest.DropBody(e2etest.T0, e2etest.Size("EU 41", 3, "per_user_limit", 3)), "variants[0].per_user_limit")
	bad("negative price", e2etest.DropBody(e2etest.T0, e2etest.Size("EU 41", 3, "price_cents", -1)), "variants[0].price_cents")
	bad("script image", e2etest.DropBody(e2etest.T0, e2etest.Size("EU 41", 3, "image_url", "javascript:alert(1)")), "variants[0].image_url")
	plainHTTP := e2etest.DropBody(e2etest.T0, e2etest.Size("EU 41", 3))
	plainHTTP["image_url"] = "http://example.com/a.png"
	bad("plain http image", plainHTTP, "image_url")
	otherHost := e2etest.DropBody(e2etest.T0, e2etest.Size("EU 41", 3))
	otherHost["image_url"] = "//evil.example/a.png"
	bad("protocol-relative image", otherHost, "image_url")
	many := make([]map[string]any, 65)
	for i := range many {
		many[i] = e2etest.Size("S"+e2etest.Itoa(int64(i)), 1)
	}
	bad("65 variants", e2etest.DropBody(e2etest.T0, many...), "variants")
}

// TestBuyADrop: one order per shopper across the drop, whatever the size;
// a sold-out size names the sizes left; orders name their variant.
func TestBuyADrop(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk)
	r := s.Call(t, "POST", "/api/v1/admin/items", e2etest.AdminToken, e2etest.DropBody(e2etest.T0,
		e2etest.Size("EU 41", 1), e2etest.Size("EU 42", 2, "per_user_limit", 1), e2etest.Size("EU 43", 1)))
	e2etest.Check(t, r, e2etest.Want{Status: 201})
	id, ids := int64(r.Body["id"].(float64)), e2etest.VariantIDs(t, r)
	other := e2etest.VariantIDs(t, s.Call(t, "GET", "/api/v1/items/"+e2etest.Itoa(s.Sale(t, 4, 1, e2etest.T0, e2etest.T0.Add(time.Hour))), "", nil))["Default"]
	buy := "/api/v1/items/" + e2etest.Itoa(id) + "/purchase"
	body := func(variant int64, qty int) string {
		return `{"variant_id":` + e2etest.Itoa(variant) + `,"quantity":` + e2etest.Itoa(int64(qty)) + `}`
	}
	ann, bob, cy, dee := s.Login(t, "ann"), s.Login(t, "bob"), s.Login(t, "cy"), s.Login(t, "dee")

	e2etest.Check(t, s.Call(t, "POST", buy, ann, `{"quantity":1}`), e2etest.Want{Status: 400, Code: "variant_required", Field: "variant_id"})
	e2etest.Check(t, s.Call(t, "POST", buy, ann, body(other, 1)), e2etest.Want{Status: 404, Code: "variant_not_found"})
	e2etest.Check(t, s.Call(t, "POST", buy, ann, body(987654, 1)), e2etest.Want{Status: 404, Code: "variant_not_found"})
	e2etest.Check(t, s.Call(t, "POST", buy, ann, `{"variant_id":0,"quantity":1}`), e2etest.Want{Status: 404, Code: "variant_not_found"})
	e2etest.Check(t, s.Call(t, "POST", buy, ann, `{"variant_id":"x","quantity":1}`), e2etest.Want{Status: 400, Code: "invalid_request", Field: "variant_id"})
	e2etest.Check(t, s.Call(t, "POST", buy, ann, body(ids["EU 42"], 2)), e2etest.Want{Status: 400, Code: "invalid_quantity", Field: "quantity"})

	first := s.Call(t, "POST", buy, ann, body(ids["EU 42"], 1))
	e2etest.Check(t, first, e2etest.Want{Status: 202})
	if int64(first.Body["variant_id"].(float64)) != ids["EU 42"] {
		t.Fatalf("reservation = %s, want variant %d", first.Raw, ids["EU 42"])
	}
	again := s.Call(t, "POST", buy, ann, body(ids["EU 41"], 1))
	e2etest.Check(t, again, e2etest.Want{Status: 409, Code: "already_purchased"})
	if got := again.Body["error"].(map[string]any)["order_id"]; got != first.Str("order_id") {
		t.Fatalf("409 names order %v, want %s", got, first.Str("order_id"))
	}

	e2etest.Check(t, s.Call(t, "POST", buy, bob, body(ids["EU 41"], 1), "Idempotency-Key", "bob-1"), e2etest.Want{Status: 202})
	e2etest.Check(t, s.Call(t, "POST", buy, bob, body(ids["EU 41"], 1), "Idempotency-Key", "bob-1"), e2etest.Want{Status: 202})
	e2etest.Check(t, s.Call(t, "POST", buy, bob, body(ids["EU 43"], 1), "Idempotency-Key", "bob-1"), e2etest.Want{Status: 422, Code: "idempotency_key_reused"})
	gone := s.Call(t, "POST", buy, cy, body(ids["EU 41"], 1))
	e2etest.Check(t, gone, e2etest.Want{Status: 410, Code: "sold_out"})
	if got := availableVariants(gone); got != e2etest.Itoa(ids["EU 42"])+","+e2etest.Itoa(ids["EU 43"]) {
		t.Fatalf("sold-out answer offers %q (%s), want EU 42 and EU 43", got, gone.Raw)
	}
	// The sold-out mark answers the next try at once, offering the same.
	if got := availableVariants(s.Call(t, "POST", buy, dee, body(ids["EU 41"], 1))); got != e2etest.Itoa(ids["EU 42"])+","+e2etest.Itoa(ids["EU 43"]) {
		t.Fatalf("marked sold-out answer offers %q", got)
	}
	e2etest.Check(t, s.Call(t, "POST", buy, cy, body(ids["EU 43"], 1)), e2etest.Want{Status: 202})
	e2etest.Check(t, s.Call(t, "POST", buy, dee, body(ids["EU 42"], 1)), e2etest.Want{Status: 202})
	all := s.Call(t, "POST", buy, s.Login(t, "eve"), body(ids["EU 42"], 1))
	e2etest.Check(t, all, e2etest.Want{Status: 410, Code: "sold_out"})
	if got := availableVariants(all); got != "" {
		t.Fatalf("a sold-out drop offers %q, want nothing", got)
	}

	orders := s.Call(t, "GET", "/api/v1/orders", ann, nil)
	if !strings.Contains(orders.Raw, `"variant_label":"EU 42"`) || !strings.Contains(orders.Raw, `"variant_id":`+e2etest.Itoa(ids["EU 42"])) {
		t.Fatalf("orders = %s, want the EU 42 order named", orders.Raw)
	}
	st := s.Settle(t, id)
	if st.Body["consistent"] != true || st.Body["sold"].(float64) != 4 || len(st.Body["variants"].([]any)) != 3 {
		t.Fatalf("stats = %s", st.Raw)
	}
	persisted := s.Call(t, "GET", "/api/v1/orders/"+first.Str("order_id"), ann, nil)
	if persisted.Str("variant_label") != "EU 42" || persisted.Str("status") != "confirmed" {
		t.Fatalf("persisted order = %s", persisted.Raw)
	}

	// After a cancel the shopper may buy again, any size; the unit goes
	// back to the size it came from.
	e2etest.Check(t, s.Call(t, "POST", "/api/v1/orders/"+first.Str("order_id")+"/cancel", ann, nil), e2etest.Want{Status: 200})
	e2etest.Check(t, s.Call(t, "POST", buy, ann, body(ids["EU 42"], 1)), e2etest.Want{Status: 202})
	st = s.Settle(t, id)
	if st.Body["consistent"] != true || st.Body["sold"].(float64) != 4 {
		t.Fatalf("stats after cancel and rebuy = %s", st.Raw)
	}
}

func availableVariants(r e2etest.Reply) string {
	e, _ := r.Body["error"].(map[string]any)
	vs, ok := e["available_variants"].([]any)
	if !ok {
		return "missing"
	}
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = e2etest.Itoa(int64(v.(float64)))
	}
	return strings.Join(parts, ",")
}
