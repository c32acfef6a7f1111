package browser

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// drawState is the state the draw panel of a sale page shows.
const drawState = `document.querySelector('#draw').dataset.state`

// enterDraw picks a size on the open sale page and enters the draw with it.
func (b *tab) enterDraw(variant int64, label string) {
	b.tb.Helper()
	b.do(chromedp.Click(css(variantButton(variant))))
	b.until(`!document.querySelector('#enter').disabled`, 5*time.Second)
	b.do(chromedp.Click(css("#enter")))
	b.until(drawState+` === 'entered' && document.querySelector('#draw-headline').textContent === "You're entered for `+label+`."`, 20*time.Second)
}

// TestBrowserDraw: three shoppers enter a draw for one pair of EU 42
// through the sale page (one first enters EU 43, then changes), and at the
// close each page shows its result by itself: the winner buys within the
// window; when the winner's order is cancelled, the first on the waitlist
// is offered the pair on their open page and buys it; the last one is
// told they were not drawn when the sale ends. The draw's page then
// recomputes the draw in the browser and finds the published winners.
//
// Serial, like every browser test: see browser_test.go.
func TestBrowserDraw(t *testing.T) {
	clk := &e2etest.LiveClock{}
	s := e2etest.StartLive(t, clk)
	names := []string{"ann", "bob", "cyd"}
	tabs := map[string]*tab{}
	for _, n := range names {
		tabs[n] = newTab(t, s)
		tabs[n].signInAt(n)
	}
	// The entries close in 20 s, real time: long enough for three pages to
	// enter, short enough to wait for.
	closes := clk.Now().Add(20 * time.Second).Truncate(time.Millisecond)
	body := e2etest.DrawBody(clk.Now().Add(-time.Minute), e2etest.Size("EU 42", 1), e2etest.Size("EU 43", 1))
	body["name"], body["image_url"], body["purchase_window_seconds"] = "Aurora runner, draw 01", "/static/img/sneaker.svg", 600
	body["entries_close_at"], body["ends_at"] = closes.Format(time.RFC3339Nano), closes.Add(time.Hour).Format(time.RFC3339Nano)
	created := s.Call(t, "POST", "/api/v1/admin/items", e2etest.AdminToken, body)
	if created.Status != 201 {
		t.Fatalf("create draw: %d %s", created.Status, created.Raw)
	}
	id, sizes := int64(e2etest.Num(created.Body, "id")), e2etest.VariantIDs(t, created)
	salePath, apiPath := "/sale/"+e2etest.Itoa(id), "/api/v1/items/"+e2etest.Itoa(id)

	ann := tabs["ann"]
	ann.open(salePath)
	ann.until(drawState+` === 'open'`, 10*time.Second)
	if !ann.eval(`document.querySelector('#enter').disabled`) || !strings.Contains(ann.text("#when"), "Draw in") {
		t.Fatalf("before a size is chosen Enter is on, or the countdown says %q", ann.text("#when"))
	}
	ann.shots("draw-open")
	ann.enterDraw(sizes["EU 43"], "EU 43")
	// A change of size before the close moves the entry.
	ann.do(chromedp.Click(css("#change")))
	ann.until(`document.querySelector('#enter').textContent === 'Choose another size'`, 5*time.Second)
	ann.enterDraw(sizes["EU 42"], "EU 42")
	for _, n := range names[1:] {
		tabs[n].open(salePath)
		tabs[n].until(drawState+` === 'open'`, 10*time.Second)
		tabs[n].enterDraw(sizes["EU 42"], "EU 42")
	}
	if late := clk.Now().Sub(closes); late >= 0 {
		t.Fatalf("the pages entered %v after the close: the test's window is too short for this machine", late)
	}
	for _, n := range names {
		if e := s.Call(t, "GET", apiPath+"/entry", e2etest.MintToken(t, n), nil); e.Status != 200 || int64(e2etest.Num(e.Body, "variant_id")) != sizes["EU 42"] {
			t.Fatalf("%s's entry after entering EU 42 on the page: %d %s", n, e.Status, e.Raw)
		}
	}
	ann.shots("draw-entered")

	// At the close the server draws; every page learns its result alone.
	for _, n := range names {
		tabs[n].until(`document.querySelector('#draw').dataset.phase === 'drawn' && ['won', 'waitlist'].includes(`+drawState+`)`,
			time.Until(closes)+20*time.Second)
	}
	byPlace := map[string]string{} // "won", "1", "2": the shopper there
	for _, n := range names {
		e := s.Call(t, "GET", apiPath+"/entry", e2etest.MintToken(t, n), nil)
		place := e.Str("result")
		if place == "waitlist" {
			place = e2etest.Itoa(int64(e2etest.Num(e.Body, "position")))
		}
		byPlace[place] = n
	}
	winner, next, last := tabs[byPlace["won"]], tabs[byPlace["1"]], tabs[byPlace["2"]]
	if winner == nil || next == nil || last == nil {
		t.Fatalf("one pair among three: want a winner and waitlist places 1 and 2, the server says %v", byPlace)
	}
	if h := winner.text("#draw-headline"); !regexp.MustCompile(`^You won EU 42 — buy within \d\d:\d\d$`).MatchString(h) {
		t.Fatalf("the winner's page says %q", h)
	}
	for n, b := range map[string]*tab{"1": next, "2": last} {
		if h, want := b.text("#draw-headline"), "you are #"+n+" on the waitlist for EU 42"; !strings.Contains(h, want) {
			t.Fatalf("waitlist place %s: the page says %q, want %q", n, h, want)
		}
	}
	d := s.Draw(t, id)
	if got := winner.eval(`document.querySelector('[data-proof="seed"] code').dataset.full === '` + *d.Seed + `' &&
		document.querySelector('[data-proof="commitment"] code').dataset.full === '` + *d.SeedSHA256 + `'`); !got {
		t.Fatal("the page does not show the published seed and commitment")
	}
	winner.shots("draw-won")
	next.shots("draw-waitlist")

	// The winner buys with the entry's purchase token.
	winner.do(chromedp.Click(css("#draw-buy")))
	winner.until(drawState+` === 'bought' && ['pending', 'confirmed'].includes(document.querySelector('#order-status').textContent)`, 10*time.Second)
	order := s.Call(t, "GET", apiPath+"/entry", e2etest.MintToken(t, byPlace["won"]), nil).Str("order_id")
	if order == "" || winner.text("#order-id") != order {
		t.Fatalf("the winner's page shows order %q, the server %q", winner.text("#order-id"), order)
	}

	winner.until(`document.querySelector('#order-status').textContent === 'confirmed'`, 10*time.Second)

	// The winner cancels: the pair is offered to the next, whose open page
	// turns into a win by itself, and who buys it.
	if r := s.Call(t, "POST", "/api/v1/orders/"+order+"/cancel", e2etest.MintToken(t, byPlace["won"]), nil); r.Status != 200 {
		t.Fatalf("cancel: %d %s", r.Status, r.Raw)
	}
	next.until(drawState+` === 'won'`, 15*time.Second)
	last.until(`document.querySelector('#draw-headline').textContent.includes('you are #1 on the waitlist')`, 15*time.Second)
	next.do(chromedp.Click(css("#draw-buy")))
	next.until(drawState+` === 'bought'`, 10*time.Second)

	// The sale ends: the last one was not drawn.
	if r := s.Call(t, "POST", "/api/v1/admin/items/"+e2etest.Itoa(id)+"/end", e2etest.AdminToken, nil); r.Status != 200 {
		t.Fatalf("end: %d %s", r.Status, r.Raw)
	}
	last.until(drawState+` === 'lost'`, 10*time.Second)
	if r := s.Call(t, "GET", apiPath+"/entry", e2etest.MintToken(t, byPlace["2"]), nil); r.Str("result") != "lost" {
		t.Fatalf("the page says not drawn, the server %s", r.Raw)
	}
	last.shots("draw-lost")

	// The draw's page recomputes the draw from what was published, held to
	// the commitment and the entry this device kept when entering.
	last.open("/static/draw-proof.html?item=" + e2etest.Itoa(id))
	last.until(`document.querySelector('#verdict').dataset.verdict === 'pass'`, 10*time.Second)
	if !last.eval(`[...document.querySelectorAll('#checks li')].every((li) => li.dataset.ok === 'true') &&
		document.querySelector('#checks').textContent.includes('The commitment is the one this device kept when you entered') &&
		document.querySelector('#checks').textContent.includes('place 3 of 3 for EU 42, on the waitlist')`) {
		t.Fatalf("the draw's page found a problem: %s", last.text("#checks"))
	}
	last.shots("draw-proof")
}
