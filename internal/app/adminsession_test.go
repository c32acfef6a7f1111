package app_test

import (
	"strings"
	"testing"
)

// TestAdminSignOutRevokes: a copy of the dashboard's cookie stops working
// the moment its session signs out, on this server and on another sharing
// the Redis, while a session signed in afterwards works.
func TestAdminSignOutRevokes(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk)
	other := s.twin(t, clk)
	signIn := func() string {
		t.Helper()
		r := s.call(t, "POST", "/api/v1/admin/session", "", `{"token":"`+adminToken+`"}`, "Origin", "http://"+s.addr)
		check(t, r, want{200, "", ""})
		return strings.Split(r.header.Get("Set-Cookie"), ";")[0]
	}
	copied := signIn()
	for _, srv := range []*server{s, other} {
		check(t, srv.call(t, "GET", "/api/v1/admin/session", "", nil, "Cookie", copied), want{200, "", ""})
	}
	// The owner signs out; the browser drops its cookie, the copy lives on.
	out := s.call(t, "DELETE", "/api/v1/admin/session", "", nil, "Cookie", copied, "Origin", "http://"+s.addr)
	check(t, out, want{204, "", ""})
	if c := out.header.Get("Set-Cookie"); !strings.Contains(c, "Max-Age=0") {
		t.Fatalf("sign-out Set-Cookie %q: want the cookie cleared", c)
	}
	for _, srv := range []*server{s, other} {
		check(t, srv.call(t, "GET", "/api/v1/admin/session", "", nil, "Cookie", copied), want{401, "unauthenticated", ""})
		check(t, srv.call(t, "GET", "/api/v1/admin/reconcile", "", nil, "Cookie", copied), want{401, "unauthenticated", ""})
	}
	fresh := signIn()
	check(t, other.call(t, "GET", "/api/v1/admin/session", "", nil, "Cookie", fresh), want{200, "", ""})
	// Signing out again, or with no session at all, is harmless.
	check(t, other.call(t, "DELETE", "/api/v1/admin/session", "", nil, "Cookie", copied, "Origin", "http://"+other.addr), want{204, "", ""})
	check(t, other.call(t, "DELETE", "/api/v1/admin/session", "", nil), want{204, "", ""})
	check(t, s.call(t, "GET", "/api/v1/admin/session", "", nil, "Cookie", fresh), want{200, "", ""})
}
