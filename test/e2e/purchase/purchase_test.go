package purchase

import (
	"testing"
	"time"

	"github.com/seckill/seckill/test/e2e/e2etest"
)

func TestPurchaseAPI(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0.Add(-time.Minute))
	s := e2etest.Start(t, clk)
	open := s.Sale(t, 5, 2, e2etest.T0, e2etest.T0.Add(time.Hour))
	tiny := s.Sale(t, 1, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	buy := func(id int64) string { return "/api/v1/items/" + e2etest.Itoa(id) + "/purchase" }
	alice, bob, carol := s.Login(t, "alice"), s.Login(t, "bob"), s.Login(t, "carol")

	t.Run("one millisecond before opening", func(t *testing.T) {
		clk.Set(e2etest.T0.Add(-time.Millisecond))
		e2etest.Check(t, s.Call(t, "POST", buy(open), alice, nil), e2etest.Want{Status: 403, Code: "not_started"})
	})
	clk.Set(e2etest.T0)
	var first e2etest.Reply
	t.Run("reserve at the opening millisecond", func(t *testing.T) {
		first = s.Call(t, "POST", buy(open), alice, `{"quantity":2}`, "Idempotency-Key", "k-1")
		e2etest.Check(t, first, e2etest.Want{Status: 202})
		if len(first.Str("order_id")) != 26 || first.Str("status") != "pending" || first.Str("user_id") != "alice" ||
			first.Body["quantity"].(float64) != 2 || first.Body["item_id"].(float64) != float64(open) {
			t.Fatalf("reservation = %s", first.Raw)
		}
	})
	tests := []struct {
		name  string
		token string
		path  string
		body  any
		hdr   []string
		want  e2etest.Want
	}{
		{"replayed Idempotency-Key", alice, buy(open), `{"quantity":2}`, []string{"Idempotency-Key", "k-1"}, e2etest.Want{Status: 202}},
		{"same key, other quantity", alice, buy(open), `{"quantity":1}`, []string{"Idempotency-Key", "k-1"}, e2etest.Want{Status: 422, Code: "idempotency_key_reused"}},
		{"second order", alice, buy(open), nil, nil, e2etest.Want{Status: 409, Code: "already_purchased"}},
		{"quantity 0", bob, buy(open), `{"quantity":0}`, nil, e2etest.Want{Status: 400, Code: "invalid_quantity", Field: "quantity"}},
		{"quantity -1", bob, buy(open), `{"quantity":-1}`, nil, e2etest.Want{Status: 400, Code: "invalid_quantity", Field: "quantity"}},
		{"quantity as string", bob, buy(open), `{"quantity":"1"}`, nil, e2etest.Want{Status: 400, Code: "invalid_quantity", Field: "quantity"}},
		{"quantity 1.5", bob, buy(open), `{"quantity":1.5}`, nil, e2etest.Want{Status: 400, Code: "invalid_quantity", Field: "quantity"}},
		{"quantity above limit", bob, buy(open), `{"quantity":3}`, nil, e2etest.Want{Status: 400, Code: "invalid_quantity", Field: "quantity"}},
		{"quantity huge", bob, buy(open), `{"quantity":99999999999999999999}`, nil, e2etest.Want{Status: 400, Code: "invalid_quantity", Field: "quantity"}},
		{"unknown field", bob, buy(open), `{"quantity":1,"price_cents":1}`, nil, e2etest.Want{Status: 400, Code: "invalid_request", Field: "price_cents"}},
		{"key in other case", bob, buy(open), `{"Quantity":2}`, nil, e2etest.Want{Status: 400, Code: "invalid_request", Field: "Quantity"}},
		{"key twice", bob, buy(open), `{"quantity":1,"quantity":2}`, nil, e2etest.Want{Status: 400, Code: "invalid_request", Field: "quantity"}},
		{"key twice, other case", bob, buy(open), `{"quantity":1,"QUANTITY":2}`, nil, e2etest.Want{Status: 400, Code: "invalid_request", Field: "QUANTITY"}},
		{"bad JSON", bob, buy(open), `{"quantity":`, nil, e2etest.Want{Status: 400, Code: "invalid_request"}},
		{"array body", bob, buy(open), `[1]`, nil, e2etest.Want{Status: 400, Code: "invalid_request"}},
		{"bad Idempotency-Key", bob, buy(open), nil, []string{"Idempotency-Key", "has space"}, e2etest.Want{Status: 400, Code: "invalid_request", Field: "Idempotency-Key"}},
		{"unknown item", bob, buy(999), nil, nil, e2etest.Want{Status: 404, Code: "item_not_found"}},
		{"non-numeric item", bob, "/api/v1/items/abc/purchase", nil, nil, e2etest.Want{Status: 404, Code: "item_not_found"}},
		{"last unit", bob, buy(tiny), nil, nil, e2etest.Want{Status: 202}},
		{"sold out", carol, buy(tiny), nil, nil, e2etest.Want{Status: 410, Code: "sold_out"}},
		{"more than left", carol, buy(open), `{"quantity":2}`, nil, e2etest.Want{Status: 202}},
		{"one left, two asked", bob, buy(open), `{"quantity":2}`, nil, e2etest.Want{Status: 410, Code: "sold_out"}},
		{"wrong method", bob, buy(open), nil, nil, e2etest.Want{Status: 405, Code: "method_not_allowed"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			method := "POST"
			if tc.want.Status == 405 {
				method = "GET"
			}
			r := s.Call(t, method, tc.path, tc.token, tc.body, tc.hdr...)
			e2etest.Check(t, r, tc.want)
			switch tc.name {
			case "replayed Idempotency-Key":
				if r.Str("order_id") != first.Str("order_id") || r.Header.Get("Idempotent-Replayed") != "true" {
					t.Fatalf("replay = %s (%v), want order %s", r.Raw, r.Header, first.Str("order_id"))
				}
			case "second order":
				if e := r.Body["error"].(map[string]any); e["order_id"] != first.Str("order_id") {
					t.Fatalf("already_purchased names %v, want %s", e["order_id"], first.Str("order_id"))
				}
			}
		})
	}
	t.Run("after the end", func(t *testing.T) {
		clk.Set(e2etest.T0.Add(time.Hour))
		e2etest.Check(t, s.Call(t, "POST", buy(open), s.Login(t, "dave"), nil), e2etest.Want{Status: 403, Code: "ended"})
	})
	for _, id := range []int64{open, tiny} {
		st := s.Settle(t, id)
		if st.Body["consistent"] != true {
			t.Fatalf("after the purchase tests: %s", st.Raw)
		}
	}
	if st := s.Stats(t, open); st.Body["sold"].(float64) != 4 || st.Body["stock_redis"].(float64) != 1 {
		t.Fatalf("open sale after the tests: %s, want 4 sold, 1 left", st.Raw)
	}
}

func TestOrdersAPI(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk)
	id := s.Sale(t, 10, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	alice, bob := s.Login(t, "alice"), s.Login(t, "bob")
	got := s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", alice, nil)
	e2etest.Check(t, got, e2etest.Want{Status: 202})
	orderID := got.Str("order_id")

	r := s.Call(t, "GET", "/api/v1/orders/"+orderID, alice, nil)
	if r.Status != 200 || (r.Str("status") != "pending" && r.Str("status") != "confirmed") {
		t.Fatalf("order right after purchase: %d %s", r.Status, r.Raw)
	}
	s.Settle(t, id)
	r = s.Call(t, "GET", "/api/v1/orders/"+orderID, alice, nil)
	if r.Status != 200 || r.Str("status") != "confirmed" || r.Str("order_id") != orderID || r.Str("created_at") == "" {
		t.Fatalf("order once persisted: %d %s", r.Status, r.Raw)
	}
	e2etest.Check(t, s.Call(t, "GET", "/api/v1/orders/"+orderID, bob, nil), e2etest.Want{Status: 404, Code: "order_not_found"})
	e2etest.Check(t, s.Call(t, "GET", "/api/v1/orders/01NOSUCHORDER0000000000000", alice, nil), e2etest.Want{Status: 404, Code: "order_not_found"})
	e2etest.Check(t, s.Call(t, "GET", "/api/v1/orders/"+orderID, "", nil), e2etest.Want{Status: 401, Code: "unauthenticated"})

	list := s.Call(t, "GET", "/api/v1/orders", alice, nil)
	orders, _ := list.Body["orders"].([]any)
	if list.Status != 200 || len(orders) != 1 || orders[0].(map[string]any)["order_id"] != orderID {
		t.Fatalf("alice's orders: %s", list.Raw)
	}
	if l := s.Call(t, "GET", "/api/v1/orders", bob, nil); l.Raw != `{"demo_payments":true,"orders":[]}` {
		t.Fatalf("bob's orders: %s", l.Raw)
	}
}

func TestItemsAPI(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk)
	upcoming := s.Sale(t, 5, 1, e2etest.T0.Add(time.Minute), e2etest.T0.Add(time.Hour))
	live := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	soldOut := s.Sale(t, 1, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	ended := s.Sale(t, 5, 1, e2etest.T0.Add(-time.Hour), e2etest.T0)
	e2etest.Check(t, s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(soldOut)+"/purchase", s.Login(t, "a"), nil), e2etest.Want{Status: 202})

	r := s.Call(t, "GET", "/api/v1/items", "", nil)
	items, _ := r.Body["items"].([]any)
	if r.Status != 200 || len(items) != 4 || r.Str("server_time") != e2etest.T0.Format(time.RFC3339) {
		t.Fatalf("items: %s", r.Raw)
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
	one := s.Call(t, "GET", "/api/v1/items/"+e2etest.Itoa(soldOut), "", nil)
	if one.Status != 200 || one.Body["stock_left"].(float64) != 0 || one.Body["stock_total"].(float64) != 1 {
		t.Fatalf("item: %s", one.Raw)
	}
	for _, p := range []string{"999", "0", "-1", "abc", "1.5"} {
		e2etest.Check(t, s.Call(t, "GET", "/api/v1/items/"+p, "", nil), e2etest.Want{Status: 404, Code: "item_not_found"})
	}
	e2etest.Check(t, s.Call(t, "GET", "/api/v1/nope", "", nil), e2etest.Want{Status: 404, Code: "not_found"})
}
