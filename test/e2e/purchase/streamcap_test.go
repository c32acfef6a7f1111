package purchase

import (
	"net/http"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestStreamsPerClientAreCapped: one client holds at most SECKILL_SSE_PER_IP
// event streams on a server, of every kind together; the next is 429
// too_many_streams with Retry-After, and closing one frees its slot.
func TestStreamsPerClientAreCapped(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0), func(c *config.Config) { c.StreamsPerIP = 3 })
	roomEvents := "/api/v1/items/" + e2etest.Itoa(e2etest.RoomSale(t, s, 10, 5, e2etest.T0)) + "/room/events"
	shopper := s.Login(t, "streamer")
	buy := s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(s.Sale(t, 10, 1, e2etest.T0, e2etest.T0.Add(time.Hour)))+"/purchase", shopper, nil)
	e2etest.Check(t, buy, e2etest.Want{Status: 202})
	orderEvents := "/api/v1/orders/" + buy.Str("order_id") + "/events"

	held := []*http.Response{openStream(t, s, roomEvents, ""), openStream(t, s, roomEvents, ""),
		openStream(t, s, "/api/v1/admin/events", e2etest.AdminToken)}
	for i, r := range held {
		if r.StatusCode != http.StatusOK {
			t.Fatalf("stream %d: %d, want 200 within the cap", i, r.StatusCode)
		}
	}
	for _, p := range []struct{ path, auth string }{{roomEvents, ""}, {orderEvents, shopper}} {
		r := s.Call(t, "GET", p.path, p.auth, nil)
		e2etest.Check(t, r, e2etest.Want{Status: 429, Code: "too_many_streams"})
		if r.Header.Get("Retry-After") == "" {
			t.Fatalf("GET %s over the cap: no Retry-After", p.path)
		}
	}
	// Other requests from the same client are not streams and go on.
	e2etest.Check(t, s.Call(t, "GET", "/api/v1/orders", shopper, nil), e2etest.Want{Status: 200})

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
	if r := s.Call(t, "GET", roomEvents, "", nil); r.Status != 429 {
		t.Fatalf("the freed slot was given twice: %d %s", r.Status, r.Raw)
	}
	next.Body.Close()
}
