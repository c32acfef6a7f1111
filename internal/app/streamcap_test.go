package app_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/testenv"
)

// TestStreamsPerClientAreCapped: one client holds at most SECKILL_SSE_PER_IP
// event streams on a server, of every kind together; the next is 429
// too_many_streams with Retry-After, and closing one frees its slot.
func TestStreamsPerClientAreCapped(t *testing.T) {
	t.Parallel()
	s := start(t, newClock(t0), func(c *config.Config) { c.StreamsPerIP = 3 })
	roomEvents := "/api/v1/items/" + itoa(roomSale(t, s, 10, 5, t0)) + "/room/events"
	shopper := s.login(t, "streamer")
	buy := s.call(t, "POST", "/api/v1/items/"+itoa(s.sale(t, 10, 1, t0, t0.Add(time.Hour)))+"/purchase", shopper, nil)
	check(t, buy, want{202, "", ""})
	orderEvents := "/api/v1/orders/" + buy.str("order_id") + "/events"

	held := []*http.Response{openStream(t, s, roomEvents, ""), openStream(t, s, roomEvents, ""),
		openStream(t, s, "/api/v1/admin/events", adminToken)}
	for i, r := range held {
		if r.StatusCode != http.StatusOK {
			t.Fatalf("stream %d: %d, want 200 within the cap", i, r.StatusCode)
		}
	}
	for _, p := range []struct{ path, auth string }{{roomEvents, ""}, {orderEvents, shopper}} {
		r := s.call(t, "GET", p.path, p.auth, nil)
		check(t, r, want{429, "too_many_streams", ""})
		if r.header.Get("Retry-After") == "" {
			t.Fatalf("GET %s over the cap: no Retry-After", p.path)
		}
	}
	// Other requests from the same client are not streams and go on.
	check(t, s.call(t, "GET", "/api/v1/orders", shopper, nil), want{200, "", ""})

	held[0].Body.Close()
	var next *http.Response
	if !testenv.Eventually(5*time.Second, func() bool {
		r := openStream(t, s, orderEvents, shopper)
		if r.StatusCode == http.StatusOK {
			next = r
			return true
		}
		r.Body.Close()
		return false
	}) {
		t.Fatal("closing a stream freed no slot within 5s")
	}
	if r := s.call(t, "GET", roomEvents, "", nil); r.status != 429 {
		t.Fatalf("the freed slot was given twice: %d %s", r.status, r.raw)
	}
	next.Body.Close()
}
