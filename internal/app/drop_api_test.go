package app_test

import (
	"strings"
	"testing"
	"time"
)

// dropBody is a drop of sneakers in sizes as an admin creates it.
func dropBody(starts time.Time, variants ...map[string]any) map[string]any {
	if variants == nil {
		variants = []map[string]any{} // sent as [], not null
	}
	return map[string]any{"name": "Aurora sneakers", "description": "One pair per customer.", "price_cents": 12900,
		"per_user_limit": 2, "image_url": "/static/img/aurora.svg", "variants": variants,
		"starts_at": starts.Format(time.RFC3339Nano), "ends_at": starts.Add(time.Hour).Format(time.RFC3339Nano)}
}

func size(label string, stock int, extra ...any) map[string]any {
	v := map[string]any{"label": label, "stock_total": stock}
	for i := 0; i+1 < len(extra); i += 2 {
		v[extra[i].(string)] = extra[i+1]
	}
	return v
}

// variantIDs reads the ids of an item answer's variants by label.
func variantIDs(tb testing.TB, r reply) map[string]int64 {
	tb.Helper()
	out := map[string]int64{}
	vs, _ := r.body["variants"].([]any)
	for _, v := range vs {
		m := v.(map[string]any)
		out[m["label"].(string)] = int64(m["id"].(float64))
	}
	if len(out) == 0 {
		tb.Fatalf("no variants in %s", r.raw)
	}
	return out
}

func variantOf(r reply, id int64) map[string]any {
	vs, _ := r.body["variants"].([]any)
	for _, v := range vs {
		if m := v.(map[string]any); int64(m["id"].(float64)) == id {
			return m
		}
	}
	return nil
}

func TestCreateDrop(t *testing.T) {
	t.Parallel()
	s := start(t, newClock(t0.Add(-time.Minute)))
	r := s.call(t, "POST", "/api/v1/admin/items", adminToken, dropBody(t0,
		size("EU 41", 3), size("EU 42", 5, "price_cents", 13900, "per_user_limit", 1),
		size("EU 43", 2, "image_url", "https://cdn.example.com/aurora-43.png")))
	check(t, r, want{201, "", ""})
	ids := variantIDs(t, r)
	if r.body["stock_total"].(float64) != 10 || r.body["stock_left"].(float64) != 10 || len(ids) != 3 ||
		r.str("image_url") != "/static/img/aurora.svg" {
		t.Fatalf("created drop = %s", r.raw)
	}
	v42 := variantOf(r, ids["EU 42"])
	if v42["price_cents"].(float64) != 13900 || v42["per_user_limit"].(float64) != 1 || v42["stock_left"].(float64) != 5 ||
		v42["status"] != "upcoming" {
		t.Fatalf("EU 42 = %v", v42)
	}
	if v41 := variantOf(r, ids["EU 41"]); v41["price_cents"].(float64) != 12900 || v41["per_user_limit"].(float64) != 2 {
		t.Fatalf("EU 41 should take the sale's price and limit: %v", v41)
	}
	list := s.call(t, "GET", "/api/v1/items", "", nil)
	if !strings.Contains(list.raw, `"label":"EU 43"`) || !strings.Contains(list.raw, "aurora-43.png") {
		t.Fatalf("shop list lacks the variants: %s", list.raw)
	}
	plain := s.call(t, "GET", "/api/v1/items/"+itoa(s.sale(t, 4, 1, t0, t0.Add(time.Hour))), "", nil)
	if vs := variantIDs(t, plain); len(vs) != 1 || vs["Default"] == 0 {
		t.Fatalf("a sale created without variants has %v, want one Default", vs)
	}

	bad := func(name string, body map[string]any, field string) {
		t.Run(name, func(t *testing.T) {
			check(t, s.call(t, "POST", "/api/v1/admin/items", adminToken, body), want{400, "invalid_request", field})
		})
	}
	withTotal := dropBody(t0, size("EU 41", 3), size("EU 42", 2))
	withTotal["stock_total"] = 5 // the sum: it says nothing new
	check(t, s.call(t, "POST", "/api/v1/admin/items", adminToken, withTotal), want{201, "", ""})
	withTotal["stock_total"] = 4
	bad("stock_total beside variants, not their sum", withTotal, "stock_total")
	bad("two labels alike", dropBody(t0, size("EU 41", 3), size("eu 41", 3)), "variants[1].label")
	bad("no variants", dropBody(t0), "variants")
	bad("label too long", dropBody(t0, size(strings.Repeat("x", 41), 3)), "variants[0].label")
	bad("empty label", dropBody(t0, size("", 3)), "variants[0].label")
	bad("no stock", dropBody(t0, size("EU 41", 0)), "variants[0].stock_total")
	bad("variant limit above the sale's", dropBody(t0, size("EU 41", 3, "per_user_limit", 3)), "variants[0].per_user_limit")
	bad("negative price", dropBody(t0, size("EU 41", 3, "price_cents", -1)), "variants[0].price_cents")
	bad("script image", dropBody(t0, size("EU 41", 3, "image_url", "javascript:alert(1)")), "variants[0].image_url")
	plainHTTP := dropBody(t0, size("EU 41", 3))
	plainHTTP["image_url"] = "http://example.com/a.png"
	bad("plain http image", plainHTTP, "image_url")
	otherHost := dropBody(t0, size("EU 41", 3))
	otherHost["image_url"] = "//evil.example/a.png"
	bad("protocol-relative image", otherHost, "image_url")
	many := make([]map[string]any, 65)
	for i := range many {
		many[i] = size("S"+itoa(int64(i)), 1)
	}
	bad("65 variants", dropBody(t0, many...), "variants")
}

// TestBuyADrop: one order per shopper across the drop, whatever the size;
// a sold-out size names the sizes left; orders name their variant.
func TestBuyADrop(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk)
	r := s.call(t, "POST", "/api/v1/admin/items", adminToken, dropBody(t0,
		size("EU 41", 1), size("EU 42", 2, "per_user_limit", 1), size("EU 43", 1)))
	check(t, r, want{201, "", ""})
	id, ids := int64(r.body["id"].(float64)), variantIDs(t, r)
	other := variantIDs(t, s.call(t, "GET", "/api/v1/items/"+itoa(s.sale(t, 4, 1, t0, t0.Add(time.Hour))), "", nil))["Default"]
	buy := "/api/v1/items/" + itoa(id) + "/purchase"
	body := func(variant int64, qty int) string {
		return `{"variant_id":` + itoa(variant) + `,"quantity":` + itoa(int64(qty)) + `}`
	}
	ann, bob, cy, dee := s.login(t, "ann"), s.login(t, "bob"), s.login(t, "cy"), s.login(t, "dee")

	check(t, s.call(t, "POST", buy, ann, `{"quantity":1}`), want{400, "variant_required", "variant_id"})
	check(t, s.call(t, "POST", buy, ann, body(other, 1)), want{404, "variant_not_found", ""})
	check(t, s.call(t, "POST", buy, ann, body(987654, 1)), want{404, "variant_not_found", ""})
	check(t, s.call(t, "POST", buy, ann, `{"variant_id":0,"quantity":1}`), want{404, "variant_not_found", ""})
	check(t, s.call(t, "POST", buy, ann, `{"variant_id":"x","quantity":1}`), want{400, "invalid_request", "variant_id"})
	check(t, s.call(t, "POST", buy, ann, body(ids["EU 42"], 2)), want{400, "invalid_quantity", "quantity"})

	first := s.call(t, "POST", buy, ann, body(ids["EU 42"], 1))
	check(t, first, want{202, "", ""})
	if int64(first.body["variant_id"].(float64)) != ids["EU 42"] {
		t.Fatalf("reservation = %s, want variant %d", first.raw, ids["EU 42"])
	}
	again := s.call(t, "POST", buy, ann, body(ids["EU 41"], 1))
	check(t, again, want{409, "already_purchased", ""})
	if got := again.body["error"].(map[string]any)["order_id"]; got != first.str("order_id") {
		t.Fatalf("409 names order %v, want %s", got, first.str("order_id"))
	}

	check(t, s.call(t, "POST", buy, bob, body(ids["EU 41"], 1), "Idempotency-Key", "bob-1"), want{202, "", ""})
	check(t, s.call(t, "POST", buy, bob, body(ids["EU 41"], 1), "Idempotency-Key", "bob-1"), want{202, "", ""})
	check(t, s.call(t, "POST", buy, bob, body(ids["EU 43"], 1), "Idempotency-Key", "bob-1"), want{422, "idempotency_key_reused", ""})
	gone := s.call(t, "POST", buy, cy, body(ids["EU 41"], 1))
	check(t, gone, want{410, "sold_out", ""})
	if got := availableVariants(gone); got != itoa(ids["EU 42"])+","+itoa(ids["EU 43"]) {
		t.Fatalf("sold-out answer offers %q (%s), want EU 42 and EU 43", got, gone.raw)
	}
	// The sold-out mark answers the next try at once, offering the same.
	if got := availableVariants(s.call(t, "POST", buy, dee, body(ids["EU 41"], 1))); got != itoa(ids["EU 42"])+","+itoa(ids["EU 43"]) {
		t.Fatalf("marked sold-out answer offers %q", got)
	}
	check(t, s.call(t, "POST", buy, cy, body(ids["EU 43"], 1)), want{202, "", ""})
	check(t, s.call(t, "POST", buy, dee, body(ids["EU 42"], 1)), want{202, "", ""})
	all := s.call(t, "POST", buy, s.login(t, "eve"), body(ids["EU 42"], 1))
	check(t, all, want{410, "sold_out", ""})
	if got := availableVariants(all); got != "" {
		t.Fatalf("a sold-out drop offers %q, want nothing", got)
	}

	orders := s.call(t, "GET", "/api/v1/orders", ann, nil)
	if !strings.Contains(orders.raw, `"variant_label":"EU 42"`) || !strings.Contains(orders.raw, `"variant_id":`+itoa(ids["EU 42"])) {
		t.Fatalf("orders = %s, want the EU 42 order named", orders.raw)
	}
	st := s.settle(t, id)
	if st.body["consistent"] != true || st.body["sold"].(float64) != 4 || len(st.body["variants"].([]any)) != 3 {
		t.Fatalf("stats = %s", st.raw)
	}
	persisted := s.call(t, "GET", "/api/v1/orders/"+first.str("order_id"), ann, nil)
	if persisted.str("variant_label") != "EU 42" || persisted.str("status") != "confirmed" {
		t.Fatalf("persisted order = %s", persisted.raw)
	}

	// After a cancel the shopper may buy again, any size; the unit goes
	// back to the size it came from.
	check(t, s.call(t, "POST", "/api/v1/orders/"+first.str("order_id")+"/cancel", ann, nil), want{200, "", ""})
	check(t, s.call(t, "POST", buy, ann, body(ids["EU 42"], 1)), want{202, "", ""})
	st = s.settle(t, id)
	if st.body["consistent"] != true || st.body["sold"].(float64) != 4 {
		t.Fatalf("stats after cancel and rebuy = %s", st.raw)
	}
}

func availableVariants(r reply) string {
	e, _ := r.body["error"].(map[string]any)
	vs, ok := e["available_variants"].([]any)
	if !ok {
		return "missing"
	}
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = itoa(int64(v.(float64)))
	}
	return strings.Join(parts, ",")
}
