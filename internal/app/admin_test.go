package app_test

import (
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/testenv"
)

func TestAdminCreateItem(t *testing.T) {
	t.Parallel()
	s := start(t, newClock(t0))
	valid := func(mod func(map[string]any)) map[string]any {
		b := map[string]any{"name": "Keyboard", "description": "d", "price_cents": 4900, "stock_total": 100,
			"per_user_limit": 2, "starts_at": "2026-11-22T10:00:00Z", "ends_at": "2026-11-22T11:30:00+01:00"}
		if mod != nil {
			mod(b)
		}
		return b
	}
	set := func(k string, v any) func(map[string]any) { return func(b map[string]any) { b[k] = v } }
	drop := func(k string) func(map[string]any) { return func(b map[string]any) { delete(b, k) } }
	tests := []struct {
		name string
		body any
		want want
	}{
		{"missing name", valid(drop("name")), want{400, "invalid_request", "name"}},
		{"long name", valid(set("name", strings.Repeat("n", 201))), want{400, "invalid_request", "name"}},
		{"negative price", valid(set("price_cents", -1)), want{400, "invalid_request", "price_cents"}},
		{"price as string", valid(set("price_cents", "49")), want{400, "invalid_request", "price_cents"}},
		{"zero stock", valid(set("stock_total", 0)), want{400, "invalid_request", "stock_total"}},
		{"fractional stock", valid(set("stock_total", 1.5)), want{400, "invalid_request", "stock_total"}},
		{"limit above stock", valid(set("per_user_limit", 101)), want{400, "invalid_request", "per_user_limit"}},
		{"limit zero", valid(set("per_user_limit", 0)), want{400, "invalid_request", "per_user_limit"}},
		{"missing start", valid(drop("starts_at")), want{400, "invalid_request", "starts_at"}},
		{"bad start", valid(set("starts_at", "tomorrow")), want{400, "invalid_request", "starts_at"}},
		{"end before start", valid(set("ends_at", "2026-11-22T09:00:00Z")), want{400, "invalid_request", "ends_at"}},
		{"end equals start", valid(set("ends_at", "2026-11-22T10:00:00Z")), want{400, "invalid_request", "ends_at"}},
		{"unknown field", valid(set("stock", 5)), want{400, "invalid_request", "stock"}},
		{"bad JSON", `{"name":`, want{400, "invalid_request", ""}},
		{"valid", valid(nil), want{201, "", ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := s.call(t, "POST", "/api/v1/admin/items", adminToken, tc.body)
			check(t, r, tc.want)
			if tc.want.status == 201 {
				if r.str("name") != "Keyboard" || r.body["stock_left"].(float64) != 100 || r.str("status") != "live" ||
					r.str("ends_at") != "2026-11-22T10:30:00Z" {
					t.Fatalf("created = %s", r.raw)
				}
			}
		})
	}
	if l := s.call(t, "GET", "/api/v1/items", "", nil); len(l.body["items"].([]any)) != 1 {
		t.Fatalf("invalid creates changed something: %s", l.raw)
	}
}

func TestAdminUpdateWarmStats(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk)
	id := s.sale(t, 5, 1, t0, t0.Add(time.Hour))
	path := "/api/v1/admin/items/" + itoa(id)
	for _, u := range []string{"a", "b", "c"} {
		check(t, s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", s.login(t, u), nil), want{202, "", ""})
	}
	tests := []struct {
		name string
		path string
		body any
		want want
		left float64
	}{
		{"below sold", path, `{"stock_total":2}`, want{409, "stock_conflict", ""}, 2},
		{"down to sold", path, `{"stock_total":3}`, want{200, "", ""}, 0},
		{"up again", path, `{"stock_total":10}`, want{200, "", ""}, 7},
		{"rename", path, `{"name":"Renamed"}`, want{200, "", ""}, 7},
		{"end before start", path, `{"ends_at":"2026-11-22T09:00:00Z"}`, want{400, "invalid_request", "ends_at"}, 7},
		{"unknown field", path, `{"stock":1}`, want{400, "invalid_request", "stock"}, 7},
		{"empty body", path, nil, want{400, "invalid_request", ""}, 7},
		{"unknown item", "/api/v1/admin/items/999", `{"name":"x"}`, want{404, "item_not_found", ""}, 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			check(t, s.call(t, "PATCH", tc.path, adminToken, tc.body), tc.want)
			item := s.call(t, "GET", "/api/v1/items/"+itoa(id), "", nil)
			if item.body["stock_left"].(float64) != tc.left {
				t.Fatalf("stock_left = %v, want %v", item.body["stock_left"], tc.left)
			}
			if st := s.settle(t, id); st.body["consistent"] != true {
				t.Fatalf("stats after %s: %s", tc.name, st.raw)
			}
		})
	}
	t.Run("window change reaches the reserve script", func(t *testing.T) {
		check(t, s.call(t, "PATCH", path, adminToken, `{"starts_at":"2026-11-22T12:00:00Z","ends_at":"2026-11-22T13:00:00Z"}`), want{200, "", ""})
		check(t, s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", s.login(t, "d"), nil), want{403, "not_started", ""})
	})
	t.Run("warm and stats", func(t *testing.T) {
		r := s.call(t, "POST", path+"/warm", adminToken, nil)
		check(t, r, want{200, "", ""})
		wantStats := map[string]float64{"item_id": float64(id), "stock_total": 10, "stock_mysql": 7, "stock_redis": 7,
			"orders_pending": 0, "orders_confirmed": 3, "orders_paid": 0, "orders_cancelled": 0, "sold": 3}
		for k, v := range wantStats {
			if r.body[k] != v {
				t.Errorf("stats %s = %v, want %v (%s)", k, r.body[k], v, r.raw)
			}
		}
		if r.body["consistent"] != true {
			t.Fatalf("stats not consistent: %s", r.raw)
		}
		check(t, s.call(t, "POST", "/api/v1/admin/items/999/warm", adminToken, nil), want{404, "item_not_found", ""})
		check(t, s.call(t, "GET", "/api/v1/admin/items/999/stats", adminToken, nil), want{404, "item_not_found", ""})
	})
}

func TestOpsEndpoints(t *testing.T) {
	t.Parallel()
	s := start(t, newClock(t0))
	id := s.sale(t, 5, 1, t0, t0.Add(time.Hour))
	check(t, s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", s.login(t, "a"), nil), want{202, "", ""})
	if r := s.call(t, "GET", "/healthz", "", nil); r.status != 200 {
		t.Fatalf("healthz: %d", r.status)
	}
	if r := s.call(t, "GET", "/readyz", "", nil); r.status != 200 || r.str("status") != "ready" {
		t.Fatalf("readyz: %d %s", r.status, r.raw)
	}
	if r := s.call(t, "GET", "/", "", nil); r.status != 200 || !strings.Contains(r.raw, "Flash sales") {
		t.Fatalf("index page: %d", r.status)
	}
	m := s.call(t, "GET", "/metrics", "", nil)
	for _, name := range []string{`seckill_purchases_total{outcome="reserved"} 1`, "seckill_purchase_duration_seconds_bucket",
		"seckill_stream_pending_orders", "seckill_orders_persisted_total", "seckill_http_request_duration_seconds"} {
		if !strings.Contains(m.raw, name) {
			t.Errorf("metrics lack %s", name)
		}
	}
}

// TestRedisOutage cuts the server off from Redis: purchases answer 503
// unavailable with Retry-After, /readyz says why, and nothing is reserved.
func TestRedisOutage(t *testing.T) {
	t.Parallel()
	p := newProxy(t, "127.0.0.1:6379")
	// The keys live on the real Redis, so they are cleaned up there.
	_, prefix := testenv.Redis(t)
	s := start(t, newClock(t0), on(redisconn.Target{Addr: p.Addr()}), func(c *config.Config) { c.RedisPrefix = prefix })
	id := s.sale(t, 5, 1, t0, t0.Add(time.Hour))
	tok := s.login(t, "a")
	p.Close()
	r := s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", tok, nil)
	check(t, r, want{503, "unavailable", ""})
	if r.header.Get("Retry-After") == "" || strings.Contains(r.raw, "127.0.0.1") {
		t.Fatalf("503 = %v %s: want Retry-After and no internals", r.header, r.raw)
	}
	if rz := s.call(t, "GET", "/readyz", "", nil); rz.status != 503 || !strings.Contains(rz.raw, "redis") {
		t.Fatalf("readyz during outage: %d %s", rz.status, rz.raw)
	}
}
