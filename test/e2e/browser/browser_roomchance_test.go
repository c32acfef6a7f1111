package browser

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// shots saves the page as a desktop (1280) and a phone (390) sees it.
func (b *tab) shots(name string) {
	b.shot(name)
	b.do(chromedp.EmulateViewport(390, 844))
	b.shot(name + "-phone")
	b.do(chromedp.EmulateViewport(1280, 900))
}

// TestBrowserRoomChanceGood: a shopper behind 30 others, with 100 units
// left, is told their chance is good and why.
//
// Serial, like every browser test: see browser_test.go.
func TestBrowserRoomChanceGood(t *testing.T) {
	clk := &e2etest.LiveClock{}
	s := e2etest.StartLive(t, clk)
	id := e2etest.RoomSale(t, s, 100, 1, clk.Now().Add(-time.Minute))
	for i := range 30 {
		e2etest.Check(t, s.Join(t, id, e2etest.MintToken(t, fmt.Sprintf("ahead%d", i))), e2etest.Want{Status: 200})
	}
	b := newTab(t, s)
	b.signInAt("gina")
	b.open("/sale/" + e2etest.Itoa(id))
	b.until(`document.querySelector('#room').dataset.outlook === 'likely'`, 10*time.Second)
	if label, text := b.text("#room-chance-label"), b.text("#room-chance-text"); label != "Good chance" ||
		!strings.Contains(text, "100 units left: enough for you even if the ") {
		t.Fatalf("chance %q: %q", label, text)
	}
	b.shots("good")
}

// TestBrowserRoomChanceSoldOut: a shopper fourth in line for 2 units sees
// a poor chance while the two before hold their turns; is told "sold out
// for now" when they buy, with the units that may still come back; sees a
// chance again when one is cancelled; and is told plainly that they will
// not get one once every unit is paid for, with a way out.
//
// Serial, like every browser test: see browser_test.go.
func TestBrowserRoomChanceSoldOut(t *testing.T) {
	clk := &e2etest.LiveClock{}
	s := e2etest.StartLive(t, clk)
	id := e2etest.RoomSale(t, s, 2, 10, clk.Now().Add(-time.Minute))
	roomPath := "/api/v1/items/" + e2etest.Itoa(id) + "/room"
	tok := map[string]string{}
	for _, u := range []string{"dave", "eve", "fay"} {
		tok[u] = e2etest.MintToken(t, u)
		e2etest.Check(t, s.Join(t, id, tok[u]), e2etest.Want{Status: 200})
	}

	b := newTab(t, s)
	b.signInAt("erin")
	b.open("/sale/" + e2etest.Itoa(id))
	b.until(`document.querySelector('#room').dataset.outlook === 'unlikely'`, 10*time.Second)
	if label, text := b.text("#room-chance-label"), b.text("#room-chance-text"); label != "Poor chance" ||
		!strings.Contains(text, "2 units left for the 3 shoppers before you (2 let in and choosing, 1 waiting)") {
		t.Fatalf("fourth in line for 2 units, 2 turns open: %q %q", label, text)
	}
	b.shots("poor")

	// The two with turns buy: sold out for now, 2 unpaid units may return.
	e2etest.BuyAdmitted(t, s, id, roomPath, tok["dave"])
	e2etest.BuyAdmitted(t, s, id, roomPath, tok["eve"])
	b.until(`document.querySelector('#room').dataset.state === 'sold_out'`, 5*time.Second)
	b.until(`document.querySelector('#room-note').textContent.startsWith('2 units are in orders not paid yet')`, 5*time.Second)
	if head := b.text("#room-headline"); head != "Sold out for now." {
		t.Fatalf("sold out with unpaid orders: %q", head)
	}
	if !b.eval(`!document.querySelector('#room-leave').classList.contains('hidden')`) {
		t.Fatal("no way out of a sold-out room")
	}
	b.shots("sold-out-for-now")

	// Dave cancels: fay, next in line, gets the unit; the page shows a
	// chance again without a reload.
	s.Settle(t, id)
	e2etest.Check(t, s.Call(t, "POST", "/api/v1/orders/"+e2etest.OnlyOrder(t, s, tok["dave"])+"/cancel", tok["dave"], nil), e2etest.Want{Status: 200})
	b.until(`document.querySelector('#room').dataset.state === 'waiting'`, 5*time.Second)
	b.until(`document.querySelector('#room-chance-text').textContent.startsWith('1 unit left for the shopper before you')`, 5*time.Second)

	// Fay buys it, and everyone pays: nothing can come back.
	e2etest.BuyAdmitted(t, s, id, roomPath, tok["fay"])
	s.Settle(t, id)
	for _, u := range []string{"eve", "fay"} {
		e2etest.Check(t, s.Call(t, "POST", "/api/v1/orders/"+e2etest.OnlyOrder(t, s, tok[u])+"/pay", tok[u], nil), e2etest.Want{Status: 200})
	}
	paid := time.Now()
	b.until(`document.querySelector('#room-headline').textContent.startsWith('Sold out: you will not get one')`, 5*time.Second)
	t.Logf("the waiting page heard the sell-out was final %v after the last payment", time.Since(paid).Round(time.Millisecond))
	if note := b.text("#room-note"); !strings.Contains(note, "Every unit is paid for") {
		t.Fatalf("final sell-out note: %q", note)
	}
	if !b.eval(`document.querySelector('#room-chance').classList.contains('hidden') && document.querySelector('#buy').disabled`) {
		t.Fatal("a chance or Buy is shown after a final sell-out")
	}
	b.shots("sold-out")
}
