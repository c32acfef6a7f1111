package ops

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestAuditRecordsEveryAdminChange makes each admin change once, each in a
// request of its own id, and finds exactly one entry for each request: the
// right action and sale, who (a fingerprint of the token, never the token),
// and the values before and after.
func TestAuditRecordsEveryAdminChange(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0))
	as := func(id string) []string { return []string{"X-Request-Id", id} }
	// A sale that has not opened, so its variants may change.
	r := s.Call(t, "POST", "/api/v1/admin/items", e2etest.AdminToken, map[string]any{"name": "Parka", "price_cents": 12900,
		"stock_total": 5, "per_user_limit": 1, "starts_at": e2etest.T0.Add(time.Hour), "ends_at": e2etest.T0.Add(2 * time.Hour)}, as("req-create")...)
	e2etest.Check(t, r, e2etest.Want{Status: 201})
	id := int64(r.Body["id"].(float64))
	path := "/api/v1/admin/items/" + e2etest.Itoa(id)
	e2etest.Check(t, s.Call(t, "PATCH", path, e2etest.AdminToken, `{"price_cents":9900,"name":"Parka"}`, as("req-update")...), e2etest.Want{Status: 200})
	r = s.Call(t, "POST", path+"/variants", e2etest.AdminToken, `{"label":"XL","stock_total":3}`, as("req-vadd")...)
	e2etest.Check(t, r, e2etest.Want{Status: 201})
	vs := r.Body["variants"].([]any)
	xl := e2etest.Itoa(int64(vs[len(vs)-1].(map[string]any)["id"].(float64)))
	e2etest.Check(t, s.Call(t, "PATCH", path+"/variants/"+xl, e2etest.AdminToken, `{"stock_total":4}`, as("req-vupdate")...), e2etest.Want{Status: 200})
	e2etest.Check(t, s.Call(t, "DELETE", path+"/variants/"+xl, e2etest.AdminToken, nil, as("req-vdelete")...), e2etest.Want{Status: 200})
	e2etest.Check(t, s.Call(t, "POST", path+"/warm", e2etest.AdminToken, nil, as("req-warm")...), e2etest.Want{Status: 200})
	// Reads change nothing and record nothing.
	e2etest.Check(t, s.Call(t, "GET", path+"/stats", e2etest.AdminToken, nil, as("req-read")...), e2etest.Want{Status: 200})

	who := e2etest.Fingerprint("token", e2etest.AdminToken)
	byReq := map[string][]e2etest.AuditEntry{}
	p := s.Audit(t, "?limit=200")
	for _, e := range p.Entries {
		byReq[e.RequestID] = append(byReq[e.RequestID], e)
		if e.Actor != who || e.ItemID == nil || *e.ItemID != id {
			t.Errorf("entry %d: actor %q item %v, want %q and %d", e.ID, e.Actor, e.ItemID, who, id)
		}
	}
	tests := []struct{ req, action, before, after string }{
		{"req-create", "create", `null`, `"name":"Parka"`},
		{"req-update", "update", `{"price_cents":12900}`, `{"price_cents":9900}`},
		{"req-vadd", "variant_add", `null`, `"label":"XL","per_user_limit":null,"price_cents":null,"stock_total":3`},
		{"req-vupdate", "variant_update", `"stock_total":3`, `"stock_total":4`},
		{"req-vdelete", "variant_delete", `"label":"XL"`, `null`},
		// The levels Redis had (the sale was warmed at creation) and got.
		{"req-warm", "warm", `{"stock":5,"variants":{`, `{"stock":5,"variants":{`},
	}
	for _, tc := range tests {
		got := byReq[tc.req]
		if len(got) != 1 {
			t.Errorf("%s: %d entries, want 1: %+v", tc.req, len(got), got)
			continue
		}
		e := got[0]
		if e.Action != tc.action || !strings.Contains(string(e.Before), tc.before) || !strings.Contains(string(e.After), tc.after) {
			t.Errorf("%s: %s before %s after %s; want %s, %s, %s", tc.req, e.Action, e.Before, e.After, tc.action, tc.before, tc.after)
		}
		if !e.At.Equal(e2etest.T0) {
			t.Errorf("%s: at %v, want the server's clock %v", tc.req, e.At, e2etest.T0)
		}
	}
	if len(p.Entries) != len(tests) {
		t.Errorf("%d entries, want %d (one per change, none for reads)", len(p.Entries), len(tests))
	}
	if strings.Contains(s.Call(t, "GET", "/api/v1/admin/audit", e2etest.AdminToken, nil).Raw, e2etest.AdminToken) {
		t.Error("the audit log shows the admin token")
	}
}

// TestAuditNamesTheDashboardSession signs in to the dashboard and changes a
// sale with the session cookie: the entry names a fingerprint of the
// session, stable across its requests, and never the cookie.
func TestAuditNamesTheDashboardSession(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0))
	id := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	r := s.Call(t, "POST", "/api/v1/admin/session", "", map[string]string{"token": e2etest.AdminToken})
	e2etest.Check(t, r, e2etest.Want{Status: 200})
	var cookie string
	for _, c := range (&http.Response{Header: r.Header}).Cookies() {
		if c.Name == "seckill_admin" {
			cookie = c.Value
		}
	}
	if cookie == "" {
		t.Fatalf("no session cookie: %v", r.Header)
	}
	for _, price := range []int{100, 200} {
		r := s.Call(t, "PATCH", "/api/v1/admin/items/"+e2etest.Itoa(id), "", map[string]int{"price_cents": price},
			"Cookie", "seckill_admin="+cookie, "Origin", s.URL(""))
		e2etest.Check(t, r, e2etest.Want{Status: 200})
	}
	p := s.Audit(t, "?action=update")
	if len(p.Entries) != 2 {
		t.Fatalf("%d update entries, want 2", len(p.Entries))
	}
	want := e2etest.Fingerprint("session", cookie)
	for _, e := range p.Entries {
		if e.Actor != want || strings.Contains(e.Actor, cookie[:16]) || e.RequestID == "" {
			t.Errorf("entry by %q (request %q), want %q and a request id", e.Actor, e.RequestID, want)
		}
	}
	if p.Entries[0].RequestID == p.Entries[1].RequestID {
		t.Errorf("two requests share the id %q", p.Entries[0].RequestID)
	}
	// The entry's request id is the one the answer carried.
	r = s.Call(t, "PATCH", "/api/v1/admin/items/"+e2etest.Itoa(id), e2etest.AdminToken, `{"price_cents":300}`)
	if got := s.Audit(t, "?limit=1").Entries[0].RequestID; got != r.Header.Get("X-Request-Id") || got == "" {
		t.Errorf("entry's request id %q, answer's %q", got, r.Header.Get("X-Request-Id"))
	}
}

// TestAuditPagingAndRefusals pages the log while it grows: every entry comes
// once, newest first; filters narrow it; bad pages and strangers are
// refused.
func TestAuditPagingAndRefusals(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0))
	a := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	b := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	for i := range 5 {
		for _, id := range []int64{a, b} {
			e2etest.Check(t, s.Call(t, "PATCH", "/api/v1/admin/items/"+e2etest.Itoa(id), e2etest.AdminToken, map[string]int{"price_cents": 1000 + i}), e2etest.Want{Status: 200})
		}
	}
	all := s.Audit(t, "?limit=200").Entries
	if len(all) != 12 {
		t.Fatalf("%d entries, want 12 (2 creates, 10 updates)", len(all))
	}
	var seen []int64
	query, warms := "?limit=5", 0
	for pages := 0; ; pages++ {
		if pages > 5 {
			t.Fatal("paging does not end")
		}
		p := s.Audit(t, query)
		for _, e := range p.Entries {
			seen = append(seen, e.ID)
		}
		// A newer entry meanwhile must not shift the pages.
		e2etest.Check(t, s.Call(t, "POST", "/api/v1/admin/items/"+e2etest.Itoa(a)+"/warm", e2etest.AdminToken, nil), e2etest.Want{Status: 200})
		warms++
		if p.NextCursor == nil {
			break
		}
		query = "?limit=5&cursor=" + *p.NextCursor
	}
	if len(seen) != len(all) {
		t.Fatalf("paged %d entries, want %d: %v", len(seen), len(all), seen)
	}
	for i, e := range all {
		if seen[i] != e.ID {
			t.Fatalf("paged %v, want newest first %v", seen, all)
		}
	}
	if n := len(s.Audit(t, "?item_id="+e2etest.Itoa(b)+"&action=update").Entries); n != 5 {
		t.Errorf("sale %d's updates: %d, want 5", b, n)
	}
	if n := len(s.Audit(t, "").Entries); n != 12+warms {
		t.Errorf("default page: %d entries, want all %d", n, 12+warms)
	}
	for _, tc := range []struct {
		query string
		want  e2etest.Want
	}{
		{"?limit=0", e2etest.Want{Status: 400, Code: "invalid_limit", Field: "limit"}},
		{"?limit=201", e2etest.Want{Status: 400, Code: "invalid_limit", Field: "limit"}},
		{"?limit=ten", e2etest.Want{Status: 400, Code: "invalid_limit", Field: "limit"}},
		{"?cursor=abc", e2etest.Want{Status: 400, Code: "invalid_cursor", Field: "cursor"}},
		{"?cursor=-3", e2etest.Want{Status: 400, Code: "invalid_cursor", Field: "cursor"}},
		{"?item_id=x", e2etest.Want{Status: 400, Code: "invalid_request", Field: "item_id"}},
	} {
		e2etest.Check(t, s.Call(t, "GET", "/api/v1/admin/audit"+tc.query, e2etest.AdminToken, nil), tc.want)
	}
	e2etest.Check(t, s.Call(t, "GET", "/api/v1/admin/audit", "", nil), e2etest.Want{Status: 401, Code: "unauthenticated"})
	e2etest.Check(t, s.Call(t, "GET", "/api/v1/admin/audit", s.Login(t, "mallory"), nil), e2etest.Want{Status: 401, Code: "unauthenticated"})
	e2etest.Check(t, s.Call(t, "GET", "/api/v1/admin/audit", "not-the-admin-token-at-all", nil), e2etest.Want{Status: 401, Code: "unauthenticated"})
}

// TestAuditFailureKeepsTheChange: with the audit table gone, an admin's
// change is still made and answered, and the entry it could not write is
// logged at error level, request id included.
func TestAuditFailureKeepsTheChange(t *testing.T) {
	t.Parallel()
	var buf e2etest.LockedBuffer
	s := e2etest.StartLogged(t, e2etest.NewClock(e2etest.T0), slog.New(slog.NewJSONHandler(&buf, nil)))
	id := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	if err := s.Db.Gorm.Exec("DROP TABLE audit_log").Error; err != nil {
		t.Fatal(err)
	}
	r := s.Call(t, "PATCH", "/api/v1/admin/items/"+e2etest.Itoa(id), e2etest.AdminToken, `{"price_cents":777}`, "X-Request-Id", "req-lost")
	e2etest.Check(t, r, e2etest.Want{Status: 200})
	if got := s.Call(t, "GET", "/api/v1/items/"+e2etest.Itoa(id), "", nil); got.Body["price_cents"] != 777.0 {
		t.Fatalf("the change did not stand: %s", got.Raw)
	}
	logs := buf.String()
	if !strings.Contains(logs, `"level":"ERROR","msg":"AUDIT ENTRY LOST`) || !strings.Contains(logs, `"request_id":"req-lost"`) ||
		!strings.Contains(logs, `"after":{"price_cents":777}`) {
		t.Fatalf("no loud log of the lost entry:\n%s", logs)
	}
}
