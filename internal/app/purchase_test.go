package app_test

import (
	"testing"
	"time"
)

func TestPurchaseAPI(t *testing.T) {
	t.Parallel()
	clk := newClock(t0.Add(-time.Minute))
	s := start(t, clk)
	open := s.sale(t, 5, 2, t0, t0.Add(time.Hour))
	tiny := s.sale(t, 1, 1, t0, t0.Add(time.Hour))
	buy := func(id int64) string { return "/api/v1/items/" + itoa(id) + "/purchase" }
	alice, bob, carol := s.login(t, "alice"), s.login(t, "bob"), s.login(t, "carol")

	t.Run("one millisecond before opening", func(t *testing.T) {
		clk.Set(t0.Add(-time.Millisecond))
		check(t, s.call(t, "POST", buy(open), alice, nil), want{403, "not_started", ""})
	})
	clk.Set(t0)
	var first reply
	t.Run("reserve at the opening millisecond", func(t *testing.T) {
		first = s.call(t, "POST", buy(open), alice, `{"quantity":2}`, "Idempotency-Key", "k-1")
		check(t, first, want{202, "", ""})
		if len(first.str("order_id")) != 26 || first.str("status") != "pending" || first.str("user_id") != "alice" ||
			first.body["quantity"].(float64) != 2 || first.body["item_id"].(float64) != float64(open) {
			t.Fatalf("reservation = %s", first.raw)
		}
	})
	tests := []struct {
		name  string
		token string
		path  string
		body  any
		hdr   []string
		want  want
	}{
		{"replayed Idempotency-Key", alice, buy(open), `{"quantity":2}`, []string{"Idempotency-Key", "k-1"}, want{202, "", ""}},
		{"same key, other quantity", alice, buy(open), `{"quantity":1}`, []string{"Idempotency-Key", "k-1"}, want{422, "idempotency_key_reused", ""}},
		{"second order", alice, buy(open), nil, nil, want{409, "already_purchased", ""}},
		{"quantity 0", bob, buy(open), `{"quantity":0}`, nil, want{400, "invalid_quantity", "quantity"}},
		{"quantity -1", bob, buy(open), `{"quantity":-1}`, nil, want{400, "invalid_quantity", "quantity"}},
		{"quantity as string", bob, buy(open), `{"quantity":"1"}`, nil, want{400, "invalid_quantity", "quantity"}},
		{"quantity 1.5", bob, buy(open), `{"quantity":1.5}`, nil, want{400, "invalid_quantity", "quantity"}},
		{"quantity above limit", bob, buy(open), `{"quantity":3}`, nil, want{400, "invalid_quantity", "quantity"}},
		{"quantity huge", bob, buy(open), `{"quantity":99999999999999999999}`, nil, want{400, "invalid_quantity", "quantity"}},
		{"unknown field", bob, buy(open), `{"quantity":1,"price_cents":1}`, nil, want{400, "invalid_request", "price_cents"}},
		{"key in other case", bob, buy(open), `{"Quantity":2}`, nil, want{400, "invalid_request", "Quantity"}},
		{"key twice", bob, buy(open), `{"quantity":1,"quantity":2}`, nil, want{400, "invalid_request", "quantity"}},
		{"key twice, other case", bob, buy(open), `{"quantity":1,"QUANTITY":2}`, nil, want{400, "invalid_request", "QUANTITY"}},
		{"bad JSON", bob, buy(open), `{"quantity":`, nil, want{400, "invalid_request", ""}},
		{"array body", bob, buy(open), `[1]`, nil, want{400, "invalid_request", ""}},
		{"bad Idempotency-Key", bob, buy(open), nil, []string{"Idempotency-Key", "has space"}, want{400, "invalid_request", "Idempotency-Key"}},
		{"unknown item", bob, buy(999), nil, nil, want{404, "item_not_found", ""}},
		{"non-numeric item", bob, "/api/v1/items/abc/purchase", nil, nil, want{404, "item_not_found", ""}},
		{"last unit", bob, buy(tiny), nil, nil, want{202, "", ""}},
		{"sold out", carol, buy(tiny), nil, nil, want{410, "sold_out", ""}},
		{"more than left", carol, buy(open), `{"quantity":2}`, nil, want{202, "", ""}},
		{"one left, two asked", bob, buy(open), `{"quantity":2}`, nil, want{410, "sold_out", ""}},
		{"wrong method", bob, buy(open), nil, nil, want{405, "method_not_allowed", ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			method := "POST"
			if tc.want.status == 405 {
				method = "GET"
			}
			r := s.call(t, method, tc.path, tc.token, tc.body, tc.hdr...)
			check(t, r, tc.want)
			switch tc.name {
			case "replayed Idempotency-Key":
				if r.str("order_id") != first.str("order_id") || r.header.Get("Idempotent-Replayed") != "true" {
					t.Fatalf("replay = %s (%v), want order %s", r.raw, r.header, first.str("order_id"))
				}
			case "second order":
				if e := r.body["error"].(map[string]any); e["order_id"] != first.str("order_id") {
					t.Fatalf("already_purchased names %v, want %s", e["order_id"], first.str("order_id"))
				}
			}
		})
	}
	t.Run("after the end", func(t *testing.T) {
		clk.Set(t0.Add(time.Hour))
		check(t, s.call(t, "POST", buy(open), s.login(t, "dave"), nil), want{403, "ended", ""})
	})
	for _, id := range []int64{open, tiny} {
		st := s.settle(t, id)
		if st.body["consistent"] != true {
			t.Fatalf("after the purchase tests: %s", st.raw)
		}
	}
	if st := s.stats(t, open); st.body["sold"].(float64) != 4 || st.body["stock_redis"].(float64) != 1 {
		t.Fatalf("open sale after the tests: %s, want 4 sold, 1 left", st.raw)
	}
}

func TestOrdersAPI(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk)
	id := s.sale(t, 10, 1, t0, t0.Add(time.Hour))
	alice, bob := s.login(t, "alice"), s.login(t, "bob")
	got := s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", alice, nil)
	check(t, got, want{202, "", ""})
	orderID := got.str("order_id")

	r := s.call(t, "GET", "/api/v1/orders/"+orderID, alice, nil)
	if r.status != 200 || (r.str("status") != "pending" && r.str("status") != "confirmed") {
		t.Fatalf("order right after purchase: %d %s", r.status, r.raw)
	}
	s.settle(t, id)
	r = s.call(t, "GET", "/api/v1/orders/"+orderID, alice, nil)
	if r.status != 200 || r.str("status") != "confirmed" || r.str("order_id") != orderID || r.str("created_at") == "" {
		t.Fatalf("order once persisted: %d %s", r.status, r.raw)
	}
	check(t, s.call(t, "GET", "/api/v1/orders/"+orderID, bob, nil), want{404, "order_not_found", ""})
	check(t, s.call(t, "GET", "/api/v1/orders/01NOSUCHORDER0000000000000", alice, nil), want{404, "order_not_found", ""})
	check(t, s.call(t, "GET", "/api/v1/orders/"+orderID, "", nil), want{401, "unauthenticated", ""})

	list := s.call(t, "GET", "/api/v1/orders", alice, nil)
	orders, _ := list.body["orders"].([]any)
	if list.status != 200 || len(orders) != 1 || orders[0].(map[string]any)["order_id"] != orderID {
		t.Fatalf("alice's orders: %s", list.raw)
	}
	if l := s.call(t, "GET", "/api/v1/orders", bob, nil); l.raw != `{"demo_payments":true,"orders":[]}` {
		t.Fatalf("bob's orders: %s", l.raw)
	}
}

func TestItemsAPI(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk)
	upcoming := s.sale(t, 5, 1, t0.Add(time.Minute), t0.Add(time.Hour))
	live := s.sale(t, 5, 1, t0, t0.Add(time.Hour))
	soldOut := s.sale(t, 1, 1, t0, t0.Add(time.Hour))
	ended := s.sale(t, 5, 1, t0.Add(-time.Hour), t0)
	check(t, s.call(t, "POST", "/api/v1/items/"+itoa(soldOut)+"/purchase", s.login(t, "a"), nil), want{202, "", ""})

	r := s.call(t, "GET", "/api/v1/items", "", nil)
	items, _ := r.body["items"].([]any)
	if r.status != 200 || len(items) != 4 || r.str("server_time") != t0.Format(time.RFC3339) {
		t.Fatalf("items: %s", r.raw)
	}
	status := map[float64]string{}
	for _, it := range items {
		m := it.(map[string]any)
		status[m["id"].(float64)] = m["status"].(string)
	}
	for id, w := range map[int64]string{upcoming: "upcoming", live: "live", soldOut: "sold_out", ended: "ended"} {
		if status[float64(id)] != w {
			t.Errorf("item %d status %q, want %q", id, status[float64(id)], w)
		}
	}
	one := s.call(t, "GET", "/api/v1/items/"+itoa(soldOut), "", nil)
	if one.status != 200 || one.body["stock_left"].(float64) != 0 || one.body["stock_total"].(float64) != 1 {
		t.Fatalf("item: %s", one.raw)
	}
	for _, p := range []string{"999", "0", "-1", "abc", "1.5"} {
		check(t, s.call(t, "GET", "/api/v1/items/"+p, "", nil), want{404, "item_not_found", ""})
	}
	check(t, s.call(t, "GET", "/api/v1/nope", "", nil), want{404, "not_found", ""})
}
