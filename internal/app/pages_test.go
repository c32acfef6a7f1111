package app_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/testenv"
)

// TestSaleRefreshIsCacheable: the sale page's once-a-second refresh is a
// shared snapshot a browser or a CDN may keep for a second and revalidate
// with its ETag, and it follows purchases and admin changes.
func TestSaleRefreshIsCacheable(t *testing.T) {
	t.Parallel()
	s := start(t, &liveClock{})
	id := s.sale(t, 10, 1, time.Now().Add(-time.Minute), time.Now().Add(time.Hour))
	path := "/api/v1/items/" + itoa(id)

	first := s.call(t, "GET", path, "", nil)
	etag := first.header.Get("ETag")
	if first.status != 200 || etag == "" || first.header.Get("Cache-Control") != "public, max-age=1" {
		t.Fatalf("refresh: %d ETag %q Cache-Control %q", first.status, etag, first.header.Get("Cache-Control"))
	}
	if first.body["stock_left"] != float64(10) {
		t.Fatalf("stock_left %v, want 10", first.body["stock_left"])
	}
	same := s.call(t, "GET", path, "", nil, "If-None-Match", etag)
	if same.status != http.StatusNotModified || same.raw != "" || same.header.Get("ETag") != etag {
		t.Fatalf("revalidation with the current ETag: %d %q ETag %q, want an empty 304", same.status, same.raw, same.header.Get("ETag"))
	}

	if r := s.call(t, "POST", path+"/purchase", mintToken(t, "refresh-buyer"), map[string]int{"quantity": 1}); r.status != 202 {
		t.Fatalf("purchase: %d %s", r.status, r.raw)
	}
	var after reply
	testenv.WaitFor(t, 2*time.Second, func() bool {
		after = s.call(t, "GET", path, "", nil, "If-None-Match", etag)
		return after.status == 200
	}, "the refresh still answers 304 for the stock before the purchase")
	if after.body["stock_left"] != float64(9) || after.header.Get("ETag") == etag {
		t.Fatalf("after a purchase: stock_left %v ETag %q (was %q)", after.body["stock_left"], after.header.Get("ETag"), etag)
	}

	if r := s.call(t, "PATCH", "/api/v1/admin/items/"+itoa(id), adminToken, map[string]string{"name": "Renamed at 10:00:01"}); r.status != 200 {
		t.Fatalf("rename: %d %s", r.status, r.raw)
	}
	if r := s.call(t, "GET", path, "", nil); r.body["name"] != "Renamed at 10:00:01" {
		t.Fatalf("right after an admin change the refresh shows %v", r.body["name"])
	}
	if r := s.call(t, "GET", "/api/v1/items", "", nil); r.body["server_time"] == nil || len(r.body["items"].([]any)) == 0 {
		t.Fatalf("the list lost its items or server_time: %s", r.raw)
	}
	check(t, s.call(t, "GET", "/api/v1/items/999999999", "", nil), want{404, "item_not_found", ""})
	check(t, s.call(t, "GET", "/api/v1/items/abc", "", nil), want{404, "item_not_found", ""})
}

// TestServerTimeIsNeverCached: the countdown's clock sync must be this
// moment's time, never a cache's.
func TestServerTimeIsNeverCached(t *testing.T) {
	t.Parallel()
	clk := &liveClock{offset: 90 * time.Second}
	s := start(t, clk)
	r := s.call(t, "GET", "/api/v1/time", "", nil)
	got, err := time.Parse(time.RFC3339Nano, r.str("server_time"))
	if r.status != 200 || err != nil || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("time: %d %s Cache-Control %q", r.status, r.raw, r.header.Get("Cache-Control"))
	}
	if d := got.Sub(clk.Now()); d > time.Second || d < -time.Second {
		t.Fatalf("server_time %v is %v from the server's clock", got, d)
	}
}

// orderEvent is one event of an order's stream (or any other).
type orderEvent struct {
	name string
	body map[string]any
}

// followOrder opens the order's event stream with the shopper's token.
func followOrder(tb testing.TB, ctx context.Context, s *server, orderID, token string) <-chan orderEvent {
	tb.Helper()
	return follow(tb, ctx, s, "/api/v1/orders/"+orderID+"/events", token)
}

// follow opens an event stream, with token if not "", and hands out its
// events until ctx ends.
func follow(tb testing.TB, ctx context.Context, s *server, path, token string) <-chan orderEvent {
	tb.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.url(path), nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		tb.Fatalf("event stream %s: %v %v", path, resp, err)
	}
	out := make(chan orderEvent, 16)
	go func() {
		defer resp.Body.Close()
		defer close(out)
		sc, name := bufio.NewScanner(resp.Body), ""
		for sc.Scan() {
			line := sc.Text()
			if n, ok := strings.CutPrefix(line, "event: "); ok {
				name = n
			} else if data, ok := strings.CutPrefix(line, "data: "); ok {
				ev := orderEvent{name: name}
				if json.Unmarshal([]byte(data), &ev.body) == nil {
					out <- ev
				}
			}
		}
	}()
	return out
}

// nextStatus waits for the stream's next order status.
func nextStatus(tb testing.TB, events <-chan orderEvent) string {
	tb.Helper()
	select {
	case ev, ok := <-events:
		if !ok || ev.name != "order" {
			tb.Fatalf("the stream ended or sent %q %v", ev.name, ev.body)
		}
		return ev.body["status"].(string)
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
	a := start(t, &liveClock{})
	b := a.twin(t, &liveClock{})
	id := a.sale(t, 10, 1, time.Now().Add(-time.Minute), time.Now().Add(time.Hour))
	tok := mintToken(t, "stream-buyer")
	r := a.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", tok, map[string]int{"quantity": 1})
	if r.status != 202 {
		t.Fatalf("purchase: %d %s", r.status, r.raw)
	}
	orderID := r.str("order_id")
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
	if p := a.call(t, "POST", "/api/v1/orders/"+orderID+"/pay", tok, nil); p.status != 200 {
		t.Fatalf("pay: %d %s", p.status, p.raw)
	}
	if got := nextStatus(t, events); got != "paid" {
		t.Fatalf("after paying on the other server the stream said %q", got)
	}

	check(t, b.call(t, "GET", "/api/v1/orders/"+orderID+"/events", mintToken(t, "someone-else"), nil), want{404, "order_not_found", ""})
	check(t, b.call(t, "GET", "/api/v1/orders/"+orderID+"/events", "", nil), want{401, "unauthenticated", ""})
}
