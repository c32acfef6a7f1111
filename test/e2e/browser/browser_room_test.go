package browser

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// signInAt signs the tab's shopper in on the shop's front page.
func (b *tab) signInAt(user string) {
	b.tb.Helper()
	b.open("/")
	b.do(chromedp.WaitVisible(css("#signin-form")), chromedp.SendKeys(css("#user-id"), user),
		chromedp.Click(css("#signin-form button[type=submit]")))
	b.until(`!!document.querySelector('#who .who')`, 10*time.Second)
}

// TestBrowserWaitingRoom: a shopper who opens a room sale's page before the
// opening is queued without doing anything, gets a place at the opening
// draw, sees how many are ahead while Buy stays off, and buys when the room
// lets them in. The server's clock runs an hour ahead of the browser's.
//
// Serial, like every browser test: see browser_test.go.
func TestBrowserWaitingRoom(t *testing.T) {
	clk := &e2etest.LiveClock{Offset: time.Hour}
	s := e2etest.StartLive(t, clk)
	b := newTab(t, s)
	b.signInAt("carol")

	opens := clk.Now().Add(7 * time.Second).Truncate(time.Millisecond)
	id := e2etest.RoomSale(t, s, 5, 1, opens)
	roomPath := "/api/v1/items/" + e2etest.Itoa(id) + "/room"
	for _, u := range []string{"ann", "ben", "cat"} {
		e2etest.Check(t, s.Join(t, id, e2etest.MintToken(t, u)), e2etest.Want{Status: 200})
	}

	b.open("/sale/" + e2etest.Itoa(id))
	b.until(`document.querySelector('#room').dataset.state === 'waiting'`, 10*time.Second)
	if head := b.text("#room-headline"); !strings.Contains(head, "in the waiting room") {
		t.Fatalf("before the opening the room says %q", head)
	}
	if pos := b.text("#room-position"); pos != "—" {
		t.Fatalf("a place %q is shown before the opening draw", pos)
	}
	if !b.eval(`document.querySelector('#buy').disabled`) {
		t.Fatal("Buy is enabled in the waiting room before the opening")
	}
	b.shot("room-before-opening")

	// The draw places four shoppers; the page learns its place by itself.
	b.until(`/^[1-4]$/.test(document.querySelector('#room-position').textContent)`, 15*time.Second)
	if late := clk.Now().Sub(opens); late > 4*time.Second {
		t.Fatalf("the page showed its place %v after the opening", late)
	}
	// The page is read before the server: admission only moves forward, so
	// Buy on must mean the server has already admitted the shopper.
	pos, _ := strconv.Atoi(b.text("#room-position"))
	buyOn := !b.eval(`document.querySelector('#buy').disabled`)
	carol := e2etest.MintToken(t, "carol")
	server := s.Call(t, "GET", roomPath, carol, nil)
	if float64(pos) != server.Body["position"] {
		t.Fatalf("page shows place %d, the server says %s", pos, server.Raw)
	}
	if buyOn && server.Str("state") != "admitted" {
		t.Fatalf("Buy is on while the server has the shopper %s", server.Raw)
	}
	b.shot("room-placed")

	// One admission a second: place 4 is let in 3 s after the opening.
	b.until(`!document.querySelector('#buy').disabled`, 15*time.Second)
	if head := b.text("#room-headline"); !strings.Contains(head, "your turn") {
		t.Fatalf("admitted, the room says %q", head)
	}
	if st := s.Call(t, "GET", roomPath, carol, nil); st.Str("state") != "admitted" {
		t.Fatalf("Buy turned on, but the server says %s", st.Raw)
	}
	b.shot("room-admitted")
	b.do(chromedp.Click(css("#buy")))
	b.until(`document.querySelector('#order-status').textContent === 'confirmed'`, 10*time.Second)
	b.shot("room-bought")
}

// TestBrowserWaitingRoomSoldOut: a shopper queued behind the last unit is
// told as soon as someone ahead buys it, without reloading.
//
// Serial, like every browser test: see browser_test.go.
func TestBrowserWaitingRoomSoldOut(t *testing.T) {
	clk := &e2etest.LiveClock{}
	s := e2etest.StartLive(t, clk)
	id := e2etest.RoomSale(t, s, 1, 10, clk.Now().Add(-time.Minute))
	roomPath := "/api/v1/items/" + e2etest.Itoa(id) + "/room"
	dave := e2etest.MintToken(t, "dave")
	e2etest.Check(t, s.Join(t, id, dave), e2etest.Want{Status: 200}) // first in line after the opening

	b := newTab(t, s)
	b.signInAt("erin")
	b.open("/sale/" + e2etest.Itoa(id))
	b.until(`document.querySelector('#room-position').textContent === '2'`, 10*time.Second)
	if !b.eval(`document.querySelector('#buy').disabled`) {
		t.Fatal("Buy is on for the second in line for one unit")
	}
	b.shot("room-second-in-line")

	e2etest.BuyAdmitted(t, s, id, roomPath, dave)
	sold := time.Now()
	b.until(`document.querySelector('#room').dataset.state === 'sold_out'`, 5*time.Second)
	t.Logf("the waiting page heard of the sell-out %v after the last unit was bought", time.Since(sold).Round(time.Millisecond))
	if head, left, status := b.text("#room-headline"), b.text("#stock"), b.text("#status"); !strings.Contains(head, "Sold out") ||
		left != "0 / 1" || status != "Sold out" {
		t.Fatalf("after the sell-out the room says %q, stock %q, status %q", head, left, status)
	}
	if !b.eval(`document.querySelector('#buy').disabled`) {
		t.Fatal("Buy is on after the sell-out")
	}
	b.shot("room-sold-out")
}
