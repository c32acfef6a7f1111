package app_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"
)

// auditEntry is one entry of GET /api/v1/admin/audit.
type auditEntry struct {
	ID        int64           `json:"id"`
	At        time.Time       `json:"at"`
	Actor     string          `json:"actor"`
	RequestID string          `json:"request_id"`
	Action    string          `json:"action"`
	ItemID    *int64          `json:"item_id"`
	Before    json.RawMessage `json:"before"`
	After     json.RawMessage `json:"after"`
}

type auditPage struct {
	Entries    []auditEntry `json:"entries"`
	NextCursor *string      `json:"next_cursor"`
}

// audit reads one page of the audit log with the admin token.
func (s *server) audit(tb testing.TB, query string) auditPage {
	tb.Helper()
	r := s.call(tb, "GET", "/api/v1/admin/audit"+query, adminToken, nil)
	var p auditPage
	if r.status != 200 || json.Unmarshal([]byte(r.raw), &p) != nil || p.Entries == nil {
		tb.Fatalf("audit%s: %d %s", query, r.status, r.raw)
	}
	return p
}

// fingerprint is the audit actor of a credential, worked out as the
// docs say: HMAC-SHA256 under the server's JWT secret.
func fingerprint(kind, secret string) string {
	mac := hmac.New(sha256.New, []byte(jwtSecret))
	mac.Write([]byte(kind + "\x00" + secret))
	return kind + ":" + hex.EncodeToString(mac.Sum(nil))[:12]
}

// TestAuditRecordsEveryAdminChange makes each admin change once, each in a
// request of its own id, and finds exactly one entry for each request: the
// right action and sale, who (a fingerprint of the token, never the token),
// and the values before and after.
func TestAuditRecordsEveryAdminChange(t *testing.T) {
	t.Parallel()
	s := start(t, newClock(t0))
	as := func(id string) []string { return []string{"X-Request-Id", id} }
	// A sale that has not opened, so its variants may change.
	r := s.call(t, "POST", "/api/v1/admin/items", adminToken, map[string]any{"name": "Parka", "price_cents": 12900,
		"stock_total": 5, "per_user_limit": 1, "starts_at": t0.Add(time.Hour), "ends_at": t0.Add(2 * time.Hour)}, as("req-create")...)
	check(t, r, want{201, "", ""})
	id := int64(r.body["id"].(float64))
	path := "/api/v1/admin/items/" + itoa(id)
	check(t, s.call(t, "PATCH", path, adminToken, `{"price_cents":9900,"name":"Parka"}`, as("req-update")...), want{200, "", ""})
	r = s.call(t, "POST", path+"/variants", adminToken, `{"label":"XL","stock_total":3}`, as("req-vadd")...)
	check(t, r, want{201, "", ""})
	vs := r.body["variants"].([]any)
	xl := itoa(int64(vs[len(vs)-1].(map[string]any)["id"].(float64)))
	check(t, s.call(t, "PATCH", path+"/variants/"+xl, adminToken, `{"stock_total":4}`, as("req-vupdate")...), want{200, "", ""})
	check(t, s.call(t, "DELETE", path+"/variants/"+xl, adminToken, nil, as("req-vdelete")...), want{200, "", ""})
	check(t, s.call(t, "POST", path+"/warm", adminToken, nil, as("req-warm")...), want{200, "", ""})
	// Reads change nothing and record nothing.
	check(t, s.call(t, "GET", path+"/stats", adminToken, nil, as("req-read")...), want{200, "", ""})

	who := fingerprint("token", adminToken)
	byReq := map[string][]auditEntry{}
	p := s.audit(t, "?limit=200")
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
		if !e.At.Equal(t0) {
			t.Errorf("%s: at %v, want the server's clock %v", tc.req, e.At, t0)
		}
	}
	if len(p.Entries) != len(tests) {
		t.Errorf("%d entries, want %d (one per change, none for reads)", len(p.Entries), len(tests))
	}
	if strings.Contains(s.call(t, "GET", "/api/v1/admin/audit", adminToken, nil).raw, adminToken) {
		t.Error("the audit log shows the admin token")
	}
}

// TestAuditNamesTheDashboardSession signs in to the dashboard and changes a
// sale with the session cookie: the entry names a fingerprint of the
// session, stable across its requests, and never the cookie.
func TestAuditNamesTheDashboardSession(t *testing.T) {
	t.Parallel()
	s := start(t, newClock(t0))
	id := s.sale(t, 5, 1, t0, t0.Add(time.Hour))
	r := s.call(t, "POST", "/api/v1/admin/session", "", map[string]string{"token": adminToken})
	check(t, r, want{200, "", ""})
	var cookie string
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == "seckill_admin" {
			cookie = c.Value
		}
	}
	if cookie == "" {
		t.Fatalf("no session cookie: %v", r.header)
	}
	for _, price := range []int{100, 200} {
		r := s.call(t, "PATCH", "/api/v1/admin/items/"+itoa(id), "", map[string]int{"price_cents": price},
			"Cookie", "seckill_admin="+cookie, "Origin", s.url(""))
		check(t, r, want{200, "", ""})
	}
	p := s.audit(t, "?action=update")
	if len(p.Entries) != 2 {
		t.Fatalf("%d update entries, want 2", len(p.Entries))
	}
	want := fingerprint("session", cookie)
	for _, e := range p.Entries {
		if e.Actor != want || strings.Contains(e.Actor, cookie[:16]) || e.RequestID == "" {
			t.Errorf("entry by %q (request %q), want %q and a request id", e.Actor, e.RequestID, want)
		}
	}
	if p.Entries[0].RequestID == p.Entries[1].RequestID {
		t.Errorf("two requests share the id %q", p.Entries[0].RequestID)
	}
	// The entry's request id is the one the answer carried.
	r = s.call(t, "PATCH", "/api/v1/admin/items/"+itoa(id), adminToken, `{"price_cents":300}`)
	if got := s.audit(t, "?limit=1").Entries[0].RequestID; got != r.header.Get("X-Request-Id") || got == "" {
		t.Errorf("entry's request id %q, answer's %q", got, r.header.Get("X-Request-Id"))
	}
}

// TestAuditPagingAndRefusals pages the log while it grows: every entry comes
// once, newest first; filters narrow it; bad pages and strangers are
// refused.
func TestAuditPagingAndRefusals(t *testing.T) {
	t.Parallel()
	s := start(t, newClock(t0))
	a := s.sale(t, 5, 1, t0, t0.Add(time.Hour))
	b := s.sale(t, 5, 1, t0, t0.Add(time.Hour))
	for i := range 5 {
		for _, id := range []int64{a, b} {
			check(t, s.call(t, "PATCH", "/api/v1/admin/items/"+itoa(id), adminToken, map[string]int{"price_cents": 1000 + i}), want{200, "", ""})
		}
	}
	all := s.audit(t, "?limit=200").Entries
	if len(all) != 12 {
		t.Fatalf("%d entries, want 12 (2 creates, 10 updates)", len(all))
	}
	var seen []int64
	query, warms := "?limit=5", 0
	for pages := 0; ; pages++ {
		if pages > 5 {
			t.Fatal("paging does not end")
		}
		p := s.audit(t, query)
		for _, e := range p.Entries {
			seen = append(seen, e.ID)
		}
		// A newer entry meanwhile must not shift the pages.
		check(t, s.call(t, "POST", "/api/v1/admin/items/"+itoa(a)+"/warm", adminToken, nil), want{200, "", ""})
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
	if n := len(s.audit(t, "?item_id="+itoa(b)+"&action=update").Entries); n != 5 {
		t.Errorf("sale %d's updates: %d, want 5", b, n)
	}
	if n := len(s.audit(t, "").Entries); n != 12+warms {
		t.Errorf("default page: %d entries, want all %d", n, 12+warms)
	}
	for _, tc := range []struct {
		query string
		want  want
	}{
		{"?limit=0", want{400, "invalid_limit", "limit"}},
		{"?limit=201", want{400, "invalid_limit", "limit"}},
		{"?limit=ten", want{400, "invalid_limit", "limit"}},
		{"?cursor=abc", want{400, "invalid_cursor", "cursor"}},
		{"?cursor=-3", want{400, "invalid_cursor", "cursor"}},
		{"?item_id=x", want{400, "invalid_request", "item_id"}},
	} {
		check(t, s.call(t, "GET", "/api/v1/admin/audit"+tc.query, adminToken, nil), tc.want)
	}
	check(t, s.call(t, "GET", "/api/v1/admin/audit", "", nil), want{401, "unauthenticated", ""})
	check(t, s.call(t, "GET", "/api/v1/admin/audit", s.login(t, "mallory"), nil), want{401, "unauthenticated", ""})
	check(t, s.call(t, "GET", "/api/v1/admin/audit", "not-the-admin-token-at-all", nil), want{401, "unauthenticated", ""})
}

// TestAuditFailureKeepsTheChange: with the audit table gone, an admin's
// change is still made and answered, and the entry it could not write is
// logged at error level, request id included.
func TestAuditFailureKeepsTheChange(t *testing.T) {
	t.Parallel()
	var buf lockedBuffer
	s := startLogged(t, newClock(t0), slog.New(slog.NewJSONHandler(&buf, nil)))
	id := s.sale(t, 5, 1, t0, t0.Add(time.Hour))
	if err := s.db.Gorm.Exec("DROP TABLE audit_log").Error; err != nil {
		t.Fatal(err)
	}
	r := s.call(t, "PATCH", "/api/v1/admin/items/"+itoa(id), adminToken, `{"price_cents":777}`, "X-Request-Id", "req-lost")
	check(t, r, want{200, "", ""})
	if got := s.call(t, "GET", "/api/v1/items/"+itoa(id), "", nil); got.body["price_cents"] != 777.0 {
		t.Fatalf("the change did not stand: %s", got.raw)
	}
	logs := buf.String()
	if !strings.Contains(logs, `"level":"ERROR","msg":"AUDIT ENTRY LOST`) || !strings.Contains(logs, `"request_id":"req-lost"`) ||
		!strings.Contains(logs, `"after":{"price_cents":777}`) {
		t.Fatalf("no loud log of the lost entry:\n%s", logs)
	}
}
