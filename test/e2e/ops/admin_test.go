package ops

import (
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

func TestAdminCreateItem(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0))
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
		want e2etest.Want
	}{
		{"missing name", valid(drop("name")), e2etest.Want{Status: 400, Code: "invalid_request", Field: "name"}},
		{"long name", valid(set("name", strings.Repeat("n", 201))), e2etest.Want{Status: 400, Code: "invalid_request", Field: "name"}},
		{"negative price", valid(set("price_cents", -1)), e2etest.Want{Status: 400, Code: "invalid_request", Field: "price_cents"}},
		{"price as string", valid(set("price_cents", "49")), e2etest.Want{Status: 400, Code: "invalid_request", Field: "price_cents"}},
		{"zero stock", valid(set("stock_total", 0)), e2etest.Want{Status: 400, Code: "invalid_request", Field: "stock_total"}},
		{"fractional stock", valid(set("stock_total", 1.5)), e2etest.Want{Status: 400, Code: "invalid_request", Field: "stock_total"}},
		{"limit above stock", valid(set("per_user_limit", 101)), e2etest.Want{Status: 400, Code: "invalid_request", Field: "per_user_limit"}},
		{"limit zero", valid(set("per_user_limit", 0)), e2etest.Want{Status: 400, Code: "invalid_request", Field: "per_user_limit"}},
		{"missing start", valid(drop("starts_at")), e2etest.Want{Status: 400, Code: "invalid_request", Field: "starts_at"}},
		{"bad start", valid(set("starts_at", "tomorrow")), e2etest.Want{Status: 400, Code: "invalid_request", Field: "starts_at"}},
		{"end before start", valid(set("ends_at", "2026-11-22T09:00:00Z")), e2etest.Want{Status: 400, Code: "invalid_request", Field: "ends_at"}},
		{"end equals start", valid(set("ends_at", "2026-11-22T10:00:00Z")), e2etest.Want{Status: 400, Code: "invalid_request", Field: "ends_at"}},
		{"unknown field", valid(set("stock", 5)), e2etest.Want{Status: 400, Code: "invalid_request", Field: "stock"}},
		{"bad JSON", `{"name":`, e2etest.Want{Status: 400, Code: "invalid_request"}},
		{"valid", valid(nil), e2etest.Want{Status: 201}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := s.Call(t, "POST", "/api/v1/admin/items", e2etest.AdminToken, tc.body)
			e2etest.Check(t, r, tc.want)
			if tc.want.Status == 201 {
				if r.Str("name") != "Keyboard" || r.Body["stock_left"].(float64) != 100 || r.Str("status") != "live" ||
					r.Str("ends_at") != "2026-11-22T10:30:00Z" {
					t.Fatalf("created = %s", r.Raw)
				}
			}
		})
	}
	if l := s.Call(t, "GET", "/api/v1/items", "", nil); len(l.Body["items"].([]any)) != 1 {
		t.Fatalf("invalid creates changed something: %s", l.Raw)
	}
}

func TestAdminUpdateWarmStats(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk)
	id := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	path := "/api/v1/admin/items/" + e2etest.Itoa(id)
	for _, u := range []string{"a", "b", "c"} {
		e2etest.Check(t, s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", s.Login(t, u), nil), e2etest.Want{Status: 202})
	}
	tests := []struct {
		name string
		path string
		body any
		want e2etest.Want
		left float64
	}{
		{"below sold", path, `{"stock_total":2}`, e2etest.Want{Status: 409, Code: "stock_conflict"}, 2},
		{"down to sold", path, `{"stock_total":3}`, e2etest.Want{Status: 200}, 0},
		{"up again", path, `{"stock_total":10}`, e2etest.Want{Status: 200}, 7},
		{"rename", path, `{"name":"Renamed"}`, e2etest.Want{Status: 200}, 7},
		{"end before start", path, `{"ends_at":"2026-11-22T09:00:00Z"}`, e2etest.Want{Status: 400, Code: "invalid_request", Field: "ends_at"}, 7},
		{"unknown field", path, `{"stock":1}`, e2etest.Want{Status: 400, Code: "invalid_request", Field: "stock"}, 7},
		{"empty body", path, nil, e2etest.Want{Status: 400, Code: "invalid_request"}, 7},
		{"unknown item", "/api/v1/admin/items/999", `{"name":"x"}`, e2etest.Want{Status: 404, Code: "item_not_found"}, 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e2etest.Check(t, s.Call(t, "PATCH", tc.path, e2etest.AdminToken, tc.body), tc.want)
			item := s.Call(t, "GET", "/api/v1/items/"+e2etest.Itoa(id), "", nil)
			if item.Body["stock_left"].(float64) != tc.left {
				t.Fatalf("stock_left = %v, want %v", item.Body["stock_left"], tc.left)
			}
			if st := s.Settle(t, id); st.Body["consistent"] != true {
				t.Fatalf("stats after %s: %s", tc.name, st.Raw)
			}
		})
	}
	t.Run("window change reaches the reserve script", func(t *testing.T) {
		e2etest.Check(t, s.Call(t, "PATCH", path, e2etest.AdminToken, `{"starts_at":"2026-11-22T12:00:00Z","ends_at":"2026-11-22T13:00:00Z"}`), e2etest.Want{Status: 200})
		e2etest.Check(t, s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", s.Login(t, "d"), nil), e2etest.Want{Status: 403, Code: "not_started"})
	})
	t.Run("warm and stats", func(t *testing.T) {
		r := s.Call(t, "POST", path+"/warm", e2etest.AdminToken, nil)
		e2etest.Check(t, r, e2etest.Want{Status: 200})
		wantStats := map[string]float64{"item_id": float64(id), "stock_total": 10, "stock_mysql": 7, "stock_redis": 7,
			"orders_pending": 0, "orders_confirmed": 3, "orders_paid": 0, "orders_cancelled": 0, "sold": 3}
		for k, v := range wantStats {
			if r.Body[k] != v {
				t.Errorf("stats %s = %v, want %v (%s)", k, r.Body[k], v, r.Raw)
			}
		}
		if r.Body["consistent"] != true {
			t.Fatalf("stats not consistent: %s", r.Raw)
		}
		e2etest.Check(t, s.Call(t, "POST", "/api/v1/admin/items/999/warm", e2etest.AdminToken, nil), e2etest.Want{Status: 404, Code: "item_not_found"})
		e2etest.Check(t, s.Call(t, "GET", "/api/v1/admin/items/999/stats", e2etest.AdminToken, nil), e2etest.Want{Status: 404, Code: "item_not_found"})
	})
}

func TestOpsEndpoints(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0))
	id := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	e2etest.Check(t, s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", s.Login(t, "a"), nil), e2etest.Want{Status: 202})
	if r := s.Call(t, "GET", "/healthz", "", nil); r.Status != 200 {
		t.Fatalf("healthz: %d", r.Status)
	}
	if r := s.Call(t, "GET", "/readyz", "", nil); r.Status != 200 || r.Str("status") != "ready" {
		t.Fatalf("readyz: %d %s", r.Status, r.Raw)
	}
	if r := s.Call(t, "GET", "/", "", nil); r.Status != 200 || !strings.Contains(r.Raw, "Flash sales") {
		t.Fatalf("index page: %d", r.Status)
	}
	m := s.Call(t, "GET", "/metrics", "", nil)
	for _, name := range []string{`seckill_purchases_total{outcome="reserved"} 1`, "seckill_purchase_duration_seconds_bucket",
		"seckill_stream_pending_orders", "seckill_orders_persisted_total", "seckill_http_request_duration_seconds"} {
		if !strings.Contains(m.Raw, name) {
			t.Errorf("metrics lack %s", name)
		}
	}
}

// TestRedisOutage cuts the server off from Redis: purchases answer 503
// unavailable with Retry-After, /readyz says why, and nothing is reserved.
func TestRedisOutage(t *testing.T) {
	t.Parallel()
	p := e2etest.NewProxy(t, "127.0.0.1:6379")
	// The keys live on the real Redis, so they are cleaned up there.
	_, prefix := testenv.Redis(t)
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0), e2etest.On(redisconn.Target{Addr: p.Addr()}), func(c *config.Config) { c.RedisPrefix = prefix })
	id := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	tok := s.Login(t, "a")
	p.Close()
	r := s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", tok, nil)
	e2etest.Check(t, r, e2etest.Want{Status: 503, Code: "unavailable"})
	if r.Header.Get("Retry-After") == "" || strings.Contains(r.Raw, "127.0.0.1") {
		t.Fatalf("503 = %v %s: want Retry-After and no internals", r.Header, r.Raw)
	}
	if rz := s.Call(t, "GET", "/readyz", "", nil); rz.Status != 503 || !strings.Contains(rz.Raw, "redis") {
		t.Fatalf("readyz during outage: %d %s", rz.Status, rz.Raw)
	}
}
