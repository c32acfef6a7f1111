package ops

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestAdminSignOutRevokes: a copy of the dashboard's cookie stops working
// the moment its session signs out, on this server and on another sharing
// the Redis, while a session signed in afterwards works.
func TestAdminSignOutRevokes(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk)
	other := s.Twin(t, clk)
	signIn := func() string {
		t.Helper()
		r := s.Call(t, "POST", "/api/v1/admin/session", "", `{"token":"`+e2etest.AdminToken+`"}`, "Origin", "http://"+s.Addr)
		e2etest.Check(t, r, e2etest.Want{Status: 200})
		return strings.Split(r.Header.Get("Set-Cookie"), ";")[0]
	}
	copied := signIn()
	for _, srv := range []*e2etest.Server{s, other} {
		e2etest.Check(t, srv.Call(t, "GET", "/api/v1/admin/session", "", nil, "Cookie", copied), e2etest.Want{Status: 200})
	}
	// The owner signs out; the browser drops its cookie, the copy lives on.
	out := s.Call(t, "DELETE", "/api/v1/admin/session", "", nil, "Cookie", copied, "Origin", "http://"+s.Addr)
	e2etest.Check(t, out, e2etest.Want{Status: 204})
	if c := out.Header.Get("Set-Cookie"); !strings.Contains(c, "Max-Age=0") {
		t.Fatalf("sign-out Set-Cookie %q: want the cookie cleared", c)
	}
	for _, srv := range []*e2etest.Server{s, other} {
		e2etest.Check(t, srv.Call(t, "GET", "/api/v1/admin/session", "", nil, "Cookie", copied), e2etest.Want{Status: 401, Code: "unauthenticated"})
		e2etest.Check(t, srv.Call(t, "GET", "/api/v1/admin/reconcile", "", nil, "Cookie", copied), e2etest.Want{Status: 401, Code: "unauthenticated"})
	}
	fresh := signIn()
	e2etest.Check(t, other.Call(t, "GET", "/api/v1/admin/session", "", nil, "Cookie", fresh), e2etest.Want{Status: 200})
	// Signing out again, or with no session at all, is harmless.
	e2etest.Check(t, other.Call(t, "DELETE", "/api/v1/admin/session", "", nil, "Cookie", copied, "Origin", "http://"+other.Addr), e2etest.Want{Status: 204})
	e2etest.Check(t, other.Call(t, "DELETE", "/api/v1/admin/session", "", nil), e2etest.Want{Status: 204})
	e2etest.Check(t, s.Call(t, "GET", "/api/v1/admin/session", "", nil, "Cookie", fresh), e2etest.Want{Status: 200})
}

// TestSignedOutDashboardStreamEnds: a dashboard stream opened with a session
// that is then signed out (on another server) ends within seconds, so a
// copied cookie cannot keep watching the live table after sign-out.
func TestSignedOutDashboardStreamEnds(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk)
	other := s.Twin(t, clk)
	s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour)) // the hub has rows to push
	r := s.Call(t, "POST", "/api/v1/admin/session", "", `{"token":"`+e2etest.AdminToken+`"}`, "Origin", "http://"+s.Addr)
	e2etest.Check(t, r, e2etest.Want{Status: 200})
	cookie := strings.Split(r.Header.Get("Set-Cookie"), ";")[0]

	req, _ := http.NewRequest("GET", other.URL("/api/v1/admin/events"), nil)
	req.Header.Set("Cookie", cookie)
	resp, err := (&http.Client{}).Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("open the dashboard stream: %v %v", resp, err)
	}
	defer resp.Body.Close()
	ended := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, resp.Body); close(ended) }()

	e2etest.Check(t, s.Call(t, "DELETE", "/api/v1/admin/session", "", nil, "Cookie", cookie, "Origin", "http://"+s.Addr), e2etest.Want{Status: 204})
	select {
	case <-ended:
	case <-time.After(20 * time.Second): // a snapshot a second, a check at most every 5 s
		t.Fatal("the dashboard stream of a signed-out session is still open after 20 s")
	}
}
