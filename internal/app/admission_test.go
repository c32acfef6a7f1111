package app_test

import (
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
)

// TestAdmissionCap: 300 shoppers at once for 5 units. After the first
// answers teach the server how little is left, most requests are answered
// without running the reserve script. Units the burst's window had no room
// for sell in the next window; exactly 5 are sold; and a cancel puts the
// sale back on sale within a second. The gate's windows follow the
// server's clock, which the test moves: the whole burst falls in one window.
func TestAdmissionCap(t *testing.T) {
	t.Parallel()
	clk := newClock(time.Now())
	s := start(t, clk, func(c *config.Config) { c.AdmitMultiple = 2 })
	id := s.sale(t, 5, 1, clk.Now().Add(-time.Minute), clk.Now().Add(time.Hour))
	path := "/api/v1/items/" + itoa(id) + "/purchase"
	codes := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := range 10 {
		wg.Go(func() {
			for i := range 30 {
				r := s.call(t, "POST", path, mintToken(t, "a"+strconv.Itoa(g)+"-"+strconv.Itoa(i)), nil)
				mu.Lock()
				codes[r.status]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	gated := metric(t, s, "gated_sold_out") + metric(t, s, "gated_unavailable")
	t.Logf("300 requests for 5 units: %v; %d answered by the gate without Redis", codes, gated)
	if codes[202] < 1 || codes[202] > 5 || codes[500] > 0 || gated < 200 {
		t.Fatalf("answers %v, %d gated: want at most 5 sold and most answered by the gate", codes, gated)
	}
	sold := codes[202]
	for i := 0; sold < 5 && i < 20; i++ {
		clk.Add(200 * time.Millisecond) // Retry-After, as a polite client waits
		if s.call(t, "POST", path, mintToken(t, "next"+strconv.Itoa(i)), nil).status == 202 {
			sold++
		}
	}
	st := s.settle(t, id)
	if st.body["sold"].(float64) != 5 || st.body["consistent"] != true {
		t.Fatalf("after the burst: %s", st.raw)
	}
	orders := s.orderIDs(t, id)
	var oid, owner string
	for oid, owner = range orders {
		break
	}
	if r := s.call(t, "POST", "/api/v1/orders/"+oid+"/cancel", mintToken(t, owner), nil); r.status != 200 {
		t.Fatalf("cancel: %s", r.raw)
	}
	clk.Add(1100 * time.Millisecond) // a new window: the gate's probe sees the returned unit
	got := 0
	for i := range 5 {
		if s.call(t, "POST", path, mintToken(t, "late"+strconv.Itoa(i)), nil).status == 202 {
			got++
		}
	}
	if got != 1 {
		t.Fatalf("after a cancel, %d of 5 later shoppers bought, want exactly the 1 unit back", got)
	}
}

func metric(tb testing.TB, s *server, outcome string) int {
	tb.Helper()
	m := regexp.MustCompile(`seckill_purchases_total\{outcome="` + outcome + `"\} (\d+)`).FindStringSubmatch(s.call(tb, "GET", "/metrics", "", nil).raw)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
