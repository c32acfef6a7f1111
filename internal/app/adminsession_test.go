package app_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
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

// TestSignedOutDashboardStreamEnds: a dashboard stream opened with a session
// that is then signed out (on another server) ends within seconds, so a
// copied cookie cannot keep watching the live table after sign-out.
func TestSignedOutDashboardStreamEnds(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk)
	other := s.twin(t, clk)
	s.sale(t, 5, 1, t0, t0.Add(time.Hour)) // the hub has rows to push
	r := s.call(t, "POST", "/api/v1/admin/session", "", `{"token":"`+adminToken+`"}`, "Origin", "http://"+s.addr)
	check(t, r, want{200, "", ""})
	cookie := strings.Split(r.header.Get("Set-Cookie"), ";")[0]

	req, _ := http.NewRequest("GET", other.url("/api/v1/admin/events"), nil)
	req.Header.Set("Cookie", cookie)
	resp, err := (&http.Client{}).Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("open the dashboard stream: %v %v", resp, err)
	}
	defer resp.Body.Close()
	ended := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, resp.Body); close(ended) }()

	check(t, s.call(t, "DELETE", "/api/v1/admin/session", "", nil, "Cookie", cookie, "Origin", "http://"+s.addr), want{204, "", ""})
	select {
	case <-ended:
	case <-time.After(20 * time.Second): // a snapshot a second, a check at most every 5 s
		t.Fatal("the dashboard stream of a signed-out session is still open after 20 s")
	}
}
