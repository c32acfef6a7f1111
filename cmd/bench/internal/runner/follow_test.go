package runner

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeShop answers the requests a sale page makes, by the contract the
// pages measure is written against: a purchase gives an order that is
// pending until confirmAfter has passed; GET /api/v1/orders/{id} shows it,
// and its /events stream sends it at once and again when it changes; the
// sale answers 304 to its ETag; /api/v1/time gives the time.
type fakeShop struct {
	confirmAfter time.Duration
	mu           sync.Mutex
	bought       map[string]time.Time
	next         atomic.Int64
	streams      atomic.Int64
}

func newFakeShop(t testing.TB, confirmAfter time.Duration) (*fakeShop, *httptest.Server) {
	t.Helper()
	f := &fakeShop{confirmAfter: confirmAfter, bought: map[string]time.Time{}}
	ts := httptest.NewServer(f)
	t.Cleanup(ts.Close)
	return f, ts
}

func (f *fakeShop) status(id string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	at, ok := f.bought[id]
	if time.Since(at) < f.confirmAfter {
		return "pending", ok
	}
	return "confirmed", ok
}

func (f *fakeShop) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case r.Method == "POST" && strings.HasSuffix(p, "/purchase"):
		if r.Header.Get("X-Purchase-Token") == "" || !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		id := fmt.Sprint("o", f.next.Add(1))
		f.mu.Lock()
		f.bought[id] = time.Now()
		f.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
		fmt.Fprintf(w, `{"order_id":%q,"status":"pending"}`, id)
	case strings.HasSuffix(p, "/events"):
		f.events(w, r, strings.TrimSuffix(strings.TrimPrefix(p, "/api/v1/orders/"), "/events"))
	case strings.HasPrefix(p, "/api/v1/orders/"):
		st, ok := f.status(strings.TrimPrefix(p, "/api/v1/orders/"))
		if !ok {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, `{"status":%q}`, st)
	case p == "/api/v1/time":
		fmt.Fprintf(w, `{"server_time":%q}`, time.Now().UTC().Format(time.RFC3339))
	case strings.HasPrefix(p, "/api/v1/items/"):
		w.Header().Set("ETag", `"v1"`)
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		fmt.Fprint(w, `{"id":1}`)
	default:
		http.NotFound(w, r)
	}
}

func (f *fakeShop) events(w http.ResponseWriter, r *http.Request, id string) {
	if _, ok := f.status(id); !ok {
		http.NotFound(w, r)
		return
	}
	f.streams.Add(1)
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(w, "retry: 2000\n\n")
	last := ""
	for {
		st, _ := f.status(id)
		if st != last {
			fmt.Fprintf(w, "event: order\ndata: {\"order_id\":%q,\"status\":%q}\n\n", id, st)
			w.(http.Flusher).Flush()
			last = st
		}
		select {
		case <-r.Context().Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func TestBuyAndFollowBothWays(t *testing.T) {
	t.Parallel()
	for _, sse := range []bool{false, true} {
		t.Run(fmt.Sprint("sse=", sse), func(t *testing.T) {
			t.Parallel()
			f, ts := newFakeShop(t, 700*time.Millisecond)
			r := &runner{seckill: &seckillServer{url: ts.URL}}
			var counts tally
			got := r.buyAndFollow(context.Background(), shopper{user: "u", jwt: "j"}, "tok", 7, sse, &counts)
			if got.bought <= 0 || got.bought > got.confirmed || got.confirmed < 700*time.Millisecond || got.confirmed > 3*time.Second {
				t.Errorf("bought after %s, confirmed after %s, want soon after 700ms", got.bought, got.confirmed)
			}
			asked := counts.snapshot()
			want := map[string]int64{"purchase 202": 1, "poll 200": 2} // polls at 300 and 800 ms
			if sse {
				want = map[string]int64{"purchase 202": 1, "stream 200": 1}
			}
			if fmt.Sprint(asked) != fmt.Sprint(want) {
				t.Errorf("requests = %v, want %v", asked, want)
			}
			if sse && f.streams.Load() != 1 {
				t.Errorf("%d streams opened, want 1", f.streams.Load())
			}
		})
	}
}

func TestStreamRefusedGivesUp(t *testing.T) {
	t.Parallel()
	_, ts := newFakeShop(t, 0)
	var counts tally
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if streamOrder(ctx, newBrowser(), ts.URL, shopper{jwt: "j"}, "nope", &counts) {
		t.Error("a refused stream counted as confirmed")
	}
	if got := counts.snapshot(); got["stream 404"] != 1 || len(got) != 1 {
		t.Errorf("requests = %v, want one refused stream and no retry", got)
	}
}

func TestHeldPagesRevalidateAndSyncTheClock(t *testing.T) {
	t.Parallel()
	_, ts := newFakeShop(t, 0)
	h := &heldPages{base: ts.URL, n: 10}
	h.item.Store(3)
	ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond)
	defer cancel()
	h.run(ctx)
	got := h.counts.snapshot()
	// Each page refreshes at about 0, 1 and 2 s: one 200, then 304s; the
	// page whose phase is 0 syncs the clock at its first refresh, and so on.
	if got["item 200"] != 10 || got["item 304"] < 10 || got["item 304"] > 20 || got["time 200"] < 1 || got["time 200"] > 3 {
		t.Errorf("answers = %v", got)
	}
	for k := range got {
		if strings.HasSuffix(k, "error") {
			t.Errorf("answers = %v: errors", got)
		}
	}
}

func TestPercentiles(t *testing.T) {
	t.Parallel()
	took := make([]time.Duration, 201)
	for i := 1; i < len(took); i++ {
		took[i] = time.Duration(i) * time.Millisecond // 1..200 ms, and one never confirmed
	}
	n, p50, p99 := percentiles(took)
	if n != 200 || p50 < 100 || p50 > 101 || p99 < 197 || p99 > 199 {
		t.Errorf("percentiles = %d, p50 %v, p99 %v", n, p50, p99)
	}
	if n, _, _ := percentiles([]time.Duration{0, 0}); n != 0 {
		t.Errorf("none confirmed counted as %d", n)
	}
}
