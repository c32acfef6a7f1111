package purchase

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestAdmissionCap: 300 shoppers at once for 5 units. After the first
// answers teach the server how little is left, most requests are answered
// without running the reserve script. Units the burst's window had no room
// for sell in the next window; exactly 5 are sold; and a cancel puts the
// sale back on sale within a second. The gate's windows follow the
// server's clock, which the test moves: the whole burst falls in one window.
func TestAdmissionCap(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(time.Now())
	s := e2etest.Start(t, clk, func(c *config.Config) { c.AdmitMultiple = 2 })
	id := s.Sale(t, 5, 1, clk.Now().Add(-time.Minute), clk.Now().Add(time.Hour))
	path := "/api/v1/items/" + e2etest.Itoa(id) + "/purchase"
	codes := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := range 10 {
		wg.Go(func() {
			for i := range 30 {
				r := s.Call(t, "POST", path, e2etest.MintToken(t, "a"+strconv.Itoa(g)+"-"+strconv.Itoa(i)), nil)
				mu.Lock()
				codes[r.Status]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	gated := e2etest.Metric(t, s, "gated_sold_out") + e2etest.Metric(t, s, "gated_unavailable")
	t.Logf("300 requests for 5 units: %v; %d answered by the gate without Redis", codes, gated)
	if codes[202] < 1 || codes[202] > 5 || codes[500] > 0 || gated < 200 {
		t.Fatalf("answers %v, %d gated: want at most 5 sold and most answered by the gate", codes, gated)
	}
	sold := codes[202]
	for i := 0; sold < 5 && i < 20; i++ {
		clk.Add(200 * time.Millisecond) // Retry-After, as a polite client waits
		if s.Call(t, "POST", path, e2etest.MintToken(t, "next"+strconv.Itoa(i)), nil).Status == 202 {
			sold++
		}
	}
	st := s.Settle(t, id)
	if st.Body["sold"].(float64) != 5 || st.Body["consistent"] != true {
		t.Fatalf("after the burst: %s", st.Raw)
	}
	orders := s.OrderIDs(t, id)
	var oid, owner string
	for oid, owner = range orders {
		break
	}
	if r := s.Call(t, "POST", "/api/v1/orders/"+oid+"/cancel", e2etest.MintToken(t, owner), nil); r.Status != 200 {
		t.Fatalf("cancel: %s", r.Raw)
	}
	clk.Add(1100 * time.Millisecond) // a new window: the gate's probe sees the returned unit
	got := 0
	for i := range 5 {
		if s.Call(t, "POST", path, e2etest.MintToken(t, "late"+strconv.Itoa(i)), nil).Status == 202 {
			got++
		}
	}
	if got != 1 {
		t.Fatalf("after a cancel, %d of 5 later shoppers bought, want exactly the 1 unit back", got)
	}
}
