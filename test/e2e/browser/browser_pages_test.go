package browser

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// netLog records what a tab asked the shop for, from Chromium's own network
// events (chromedp enables the Network domain on every tab): what the page
// really sent, whatever its code says.
type netLog struct {
	mu    sync.Mutex
	paths map[network.RequestID]string
	sent  map[string]int              // path -> requests
	wire  map[network.RequestID]int64 // the status each request got from the server
	ended map[string]bool             // path -> a response of it finished or was cut off
}

// listenNet starts recording the tab's requests; call it before opening a page.
func listenNet(b *tab) *netLog {
	b.tb.Helper()
	l := &netLog{paths: map[network.RequestID]string{}, sent: map[string]int{},
		wire: map[network.RequestID]int64{}, ended: map[string]bool{}}
	if err := chromedp.Listen(b.ctx, l.on); err != nil {
		b.tb.Fatalf("listen to the tab's network: %v", err)
	}
	return l
}

// on runs on the tab's event loop: it only takes notes.
func (l *netLog) on(ev any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		if u, err := url.Parse(e.Request.URL); err == nil {
			l.paths[e.RequestID] = u.Path
			l.sent[u.Path]++
		}
	case *network.EventResponseReceivedExtraInfo:
		// The status on the wire: the plain response event reports a
		// revalidated cache entry as the 200 it was stored as.
		l.wire[e.RequestID] = e.StatusCode
	case *network.EventLoadingFinished:
		l.ended[l.paths[e.RequestID]] = true
	case *network.EventLoadingFailed:
		l.ended[l.paths[e.RequestID]] = true
	}
}

func (l *netLog) count(path string) int { l.mu.Lock(); defer l.mu.Unlock(); return l.sent[path] }

// answered counts path's requests that the server answered with status.
// The extra-info event may come before or after the request's own, so the
// two are matched here, by request id.
func (l *netLog) answered(path string, status int64) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for id, st := range l.wire {
		if st == status && l.paths[id] == path {
			n++
		}
	}
	return n
}

func (l *netLog) closed(path string) bool { l.mu.Lock(); defer l.mu.Unlock(); return l.ended[path] }

// TestBrowserSalePageCostsLittle: the sale page refreshes its sale with GET
// /api/v1/items/{id} through the browser's cache (so mostly 304s) and never
// the whole list, syncs its clock with GET /api/v1/time, and after Buy
// learns "confirmed" from the order's event stream, which it then closes,
// without one GET /api/v1/orders/{id}.
//
// Serial, like every browser test: see browser_test.go.
func TestBrowserSalePageCostsLittle(t *testing.T) {
	clk := &e2etest.LiveClock{Offset: time.Hour} // the page must go by the server's clock
	s := e2etest.StartLive(t, clk)
	id := s.Sale(t, 5, 1, clk.Now().Add(-time.Minute), clk.Now().Add(time.Hour))
	b := newTab(t, s)
	b.signInAt("dana")
	net := listenNet(b)
	b.open("/sale/" + e2etest.Itoa(id))
	b.until(`!document.querySelector('#buy').disabled`, 10*time.Second)
	if n := net.count("/api/v1/time"); n < 3 {
		t.Fatalf("the page synced its clock with %d requests to /api/v1/time, want the best of 3", n)
	}

	itemPath := "/api/v1/items/" + e2etest.Itoa(id)
	if !testenv.Eventually(15*time.Second, func() bool { return net.answered(itemPath, 304) >= 2 }) {
		t.Fatalf("after %d refreshes of %s: %d answered 200, %d answered 304; want 304s from revalidating the cached sale",
			net.count(itemPath), itemPath, net.answered(itemPath, 200), net.answered(itemPath, 304))
	}
	if n := net.count("/api/v1/items"); n != 0 {
		t.Fatalf("the sale page read the whole list %d times", n)
	}

	b.do(chromedp.Click(css("#buy")))
	b.until(`document.querySelector('#order-status').textContent === 'confirmed'`, 10*time.Second)
	order := b.text("#order-id")
	orderPath, eventsPath := "/api/v1/orders/"+order, "/api/v1/orders/"+order+"/events"
	if n := net.count(eventsPath); n != 1 {
		t.Fatalf("the page opened %s %d times, want once", eventsPath, n)
	}
	if !testenv.Eventually(5*time.Second, func() bool { return net.closed(eventsPath) }) {
		t.Fatal("the page kept the order's event stream open after the order was confirmed")
	}
	if n := net.count(orderPath); n != 0 {
		t.Fatalf("the page polled %s %d times", orderPath, n)
	}
	b.shot("confirmed")
}

// TestBrowserSalePageMissing: a sale that does not exist (GET
// /api/v1/items/{id} answers 404) shows the page's "missing" state.
//
// Serial, like every browser test: see browser_test.go.
func TestBrowserSalePageMissing(t *testing.T) {
	s := e2etest.StartLive(t, &e2etest.LiveClock{})
	b := newTab(t, s)
	b.open("/sale/987654")
	b.until(`!document.querySelector('#missing').classList.contains('hidden')`, 10*time.Second)
	if !b.eval(`document.querySelector('#sale').classList.contains('hidden')`) {
		t.Fatal("a missing sale shows the sale card")
	}
}

// TestBrowserShopMoreSales: with more sales than one page, the shop shows
// the first 20, open ones first, and "More sales" adds the next page below
// them, then hides itself on the last page; the page's refresh keeps both
// pages shown, reading the list a page at a time.
//
// Serial, like every browser test: see browser_test.go.
func TestBrowserShopMoreSales(t *testing.T) {
	clk := &e2etest.LiveClock{}
	s := e2etest.StartLive(t, clk)
	store, now := catalog.NewStore(s.Db.Gorm), clk.Now()
	var open, ended []int64
	for i := range 26 {
		starts := now.Add(time.Duration(i-10) * time.Hour) // 10 live, then upcoming
		if i >= 21 {
			starts = now.Add(-time.Duration(i) * 24 * time.Hour) // ended days ago
		}
		it, err := store.Create(context.Background(), catalog.Item{Name: fmt.Sprintf("Drop %d", i+1), PriceCents: 1900,
			StockTotal: 5, PerUserLimit: 1, StartsAt: starts, EndsAt: starts.Add(12 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if i < 21 {
			open = append(open, it.ID)
		} else {
			ended = append(ended, it.ID)
		}
	}
	b := newTab(t, s)
	net := listenNet(b)
	b.open("/")
	b.until(`document.querySelectorAll('#sales .sale-card').length === 20 && !document.querySelector('#more').classList.contains('hidden')`, 10*time.Second)
	if first, last := b.eval(`document.querySelector('#sales .sale-card').dataset.item === '`+e2etest.Itoa(open[0])+`'`),
		b.eval(`document.querySelectorAll('#sales .sale-card')[19].dataset.item === '`+e2etest.Itoa(open[19])+`'`); !first || !last {
		t.Fatal("the first page does not show the open sales by their opening, soonest started first")
	}
	b.do(chromedp.EmulateViewport(1280, 800))
	b.shot("first-page")

	b.do(chromedp.Click(css("#more")))
	b.until(`document.querySelectorAll('#sales .sale-card').length === 26 && document.querySelector('#more').classList.contains('hidden')`, 10*time.Second)
	want := append(open[20:], ended[0])
	for i, id := range want {
		if !b.eval(fmt.Sprintf(`document.querySelectorAll('#sales .sale-card')[%d].dataset.item === '%d'`, 20+i, id)) {
			t.Fatalf("card %d after More sales is not sale %d: the next page shows the last open sale, then the most recently ended", 21+i, id)
		}
	}
	if !b.eval(`document.activeElement.closest('.sale-card')?.dataset.item === '` + e2etest.Itoa(open[20]) + `'`) {
		t.Fatal("More sales left the focus off the first sale it added")
	}
	b.shot("more")

	// Two refreshes later (each reads the two pages shown), both pages are still there.
	read := net.count("/api/v1/items")
	if !testenv.Eventually(10*time.Second, func() bool { return net.count("/api/v1/items") >= read+4 }) {
		t.Fatalf("the page read the list %d times in 10 s after More sales", net.count("/api/v1/items")-read)
	}
	if !b.eval(`document.querySelectorAll('#sales .sale-card').length === 26 && document.querySelector('#more').classList.contains('hidden')`) {
		t.Fatal("a refresh lost the second page")
	}
	b.do(chromedp.EmulateViewport(390, 844))
	b.shot("phone")
}
