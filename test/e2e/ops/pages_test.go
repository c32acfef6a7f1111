package ops

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestSaleRefreshIsCacheable: the sale page's once-a-second refresh is a
// shared snapshot a browser or a CDN may keep for a second and revalidate
// with its ETag, and it follows purchases and admin changes.
func TestSaleRefreshIsCacheable(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, &e2etest.LiveClock{})
	id := s.Sale(t, 10, 1, time.Now().Add(-time.Minute), time.Now().Add(time.Hour))
	path := "/api/v1/items/" + e2etest.Itoa(id)

	first := s.Call(t, "GET", path, "", nil)
	etag := first.Header.Get("ETag")
	if first.Status != 200 || etag == "" || first.Header.Get("Cache-Control") != "public, max-age=1" {
		t.Fatalf("refresh: %d ETag %q Cache-Control %q", first.Status, etag, first.Header.Get("Cache-Control"))
	}
	if first.Body["stock_left"] != float64(10) {
		t.Fatalf("stock_left %v, want 10", first.Body["stock_left"])
	}
	same := s.Call(t, "GET", path, "", nil, "If-None-Match", etag)
	if same.Status != http.StatusNotModified || same.Raw != "" || same.Header.Get("ETag") != etag {
		t.Fatalf("revalidation with the current ETag: %d %q ETag %q, want an empty 304", same.Status, same.Raw, same.Header.Get("ETag"))
	}

	if r := s.Call(t, "POST", path+"/purchase", e2etest.MintToken(t, "refresh-buyer"), map[string]int{"quantity": 1}); r.Status != 202 {
		t.Fatalf("purchase: %d %s", r.Status, r.Raw)
	}
	var after e2etest.Reply
	testenv.WaitFor(t, 2*time.Second, func() bool {
		after = s.Call(t, "GET", path, "", nil, "If-None-Match", etag)
		return after.Status == 200
	}, "the refresh still answers 304 for the stock before the purchase")
	if after.Body["stock_left"] != float64(9) || after.Header.Get("ETag") == etag {
		t.Fatalf("after a purchase: stock_left %v ETag %q (was %q)", after.Body["stock_left"], after.Header.Get("ETag"), etag)
	}

	if r := s.Call(t, "PATCH", "/api/v1/admin/items/"+e2etest.Itoa(id), e2etest.AdminToken, map[string]string{"name": "Renamed at 10:00:01"}); r.Status != 200 {
		t.Fatalf("rename: %d %s", r.Status, r.Raw)
	}
	if r := s.Call(t, "GET", path, "", nil); r.Body["name"] != "Renamed at 10:00:01" {
		t.Fatalf("right after an admin change the refresh shows %v", r.Body["name"])
	}
	if r := s.Call(t, "GET", "/api/v1/items", "", nil); r.Body["server_time"] == nil || len(r.Body["items"].([]any)) == 0 {
		t.Fatalf("the list lost its items or server_time: %s", r.Raw)
	}
	e2etest.Check(t, s.Call(t, "GET", "/api/v1/items/999999999", "", nil), e2etest.Want{Status: 404, Code: "item_not_found"})
	e2etest.Check(t, s.Call(t, "GET", "/api/v1/items/abc", "", nil), e2etest.Want{Status: 404, Code: "item_not_found"})
}

// TestServerTimeIsNeverCached: the countdown's clock sync must be this
// moment's time, never a cache's.
func TestServerTimeIsNeverCached(t *testing.T) {
	t.Parallel()
	clk := &e2etest.LiveClock{Offset: 90 * time.Second}
	s := e2etest.Start(t, clk)
	r := s.Call(t, "GET", "/api/v1/time", "", nil)
	got, err := time.Parse(time.RFC3339Nano, r.Str("server_time"))
	if r.Status != 200 || err != nil || r.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("time: %d %s Cache-Control %q", r.Status, r.Raw, r.Header.Get("Cache-Control"))
	}
	if d := got.Sub(clk.Now()); d > time.Second || d < -time.Second {
		t.Fatalf("server_time %v is %v from the server's clock", got, d)
	}
}

// followOrder opens the order's event stream with the shopper's token.
func followOrder(tb testing.TB, ctx context.Context, s *e2etest.Server, orderID, token string) <-chan e2etest.OrderEvent {
	tb.Helper()
	return e2etest.Follow(tb, ctx, s, "/api/v1/orders/"+orderID+"/events", token)
}

// nextStatus waits for the stream's next order status.
func nextStatus(tb testing.TB, events <-chan e2etest.OrderEvent) string {
	tb.Helper()
	select {
	case ev, ok := <-events:
		if !ok || ev.Name != "order" {
			tb.Fatalf("the stream ended or sent %q %v", ev.Name, ev.Body)
		}
		return ev.Body["status"].(string)
	case <-time.After(15 * time.Second):
		tb.Fatal("no order event in 15 s")
	}
	return ""
}

// TestOrderStreamFollowsAcrossServers: a shopper who bought on one server
// and follows the order on another hears it confirmed and then paid,
// without asking again.
func TestOrderStreamFollowsAcrossServers(t *testing.T) {
	t.Parallel()
	a := e2etest.Start(t, &e2etest.LiveClock{})
	b := a.Twin(t, &e2etest.LiveClock{})
	id := a.Sale(t, 10, 1, time.Now().Add(-time.Minute), time.Now().Add(time.Hour))
	tok := e2etest.MintToken(t, "stream-buyer")
	r := a.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", tok, map[string]int{"quantity": 1})
	if r.Status != 202 {
		t.Fatalf("purchase: %d %s", r.Status, r.Raw)
	}
	orderID := r.Str("order_id")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := followOrder(t, ctx, b, orderID, tok)

	status := nextStatus(t, events)
	if status == "pending" {
		status = nextStatus(t, events)
	}
	if status != "confirmed" {
		t.Fatalf("the stream said %q, want pending then confirmed", status)
	}
	if p := a.Call(t, "POST", "/api/v1/orders/"+orderID+"/pay", tok, nil); p.Status != 200 {
		t.Fatalf("pay: %d %s", p.Status, p.Raw)
	}
	if got := nextStatus(t, events); got != "paid" {
		t.Fatalf("after paying on the other server the stream said %q", got)
	}

	e2etest.Check(t, b.Call(t, "GET", "/api/v1/orders/"+orderID+"/events", e2etest.MintToken(t, "someone-else"), nil), e2etest.Want{Status: 404, Code: "order_not_found"})
	e2etest.Check(t, b.Call(t, "GET", "/api/v1/orders/"+orderID+"/events", "", nil), e2etest.Want{Status: 401, Code: "unauthenticated"})
}
