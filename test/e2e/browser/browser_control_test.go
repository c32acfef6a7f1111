package browser

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// Serial, like every browser test: see browser_test.go. An admin pauses a
// live sale from the dashboard and a shopper's open sale page says so and
// turns Buy off; Resume turns it back on; "End now" needs a second click and
// ends the sale on the page; Retire is offered and refused just after the end.
func TestBrowserAdminPausesAndEndsASale(t *testing.T) {
	clk := &e2etest.LiveClock{}
	s := e2etest.StartLive(t, clk)
	id := s.Sale(t, 20, 1, clk.Now().Add(-time.Minute), clk.Now().Add(time.Hour))
	row := `#rows tr[data-item="` + e2etest.Itoa(id) + `"]`

	shopper := newTab(t, s)
	shopper.open("/sale/" + e2etest.Itoa(id))
	shopper.until(`document.querySelector('#status').textContent === 'Live'`, 10*time.Second)

	admin := newTab(t, s)
	admin.adminSignIn()
	admin.until(`document.querySelector('`+row+` button[data-act="pause"]') !== null`, 10*time.Second)
	admin.do(chromedp.Click(css(row + ` button[data-act="pause"]`)))
	admin.until(`document.querySelector('`+row+` [data-cell="status"]').textContent === 'paused' &&
		document.querySelector('`+row+` button[data-act="resume"]')?.textContent === 'Resume'`, 5*time.Second)
	admin.shot("admin-paused")
	shopper.until(`document.querySelector('#status').textContent === 'Paused' &&
		document.querySelector('#message').textContent.includes('paused')`, 5*time.Second)
	shopper.shot("paused")
	shopper.do(chromedp.EmulateViewport(390, 844))
	shopper.until(`document.documentElement.scrollWidth <= window.innerWidth`, 5*time.Second)
	shopper.shot("paused-phone")
	shopper.do(chromedp.EmulateViewport(1280, 900))

	admin.do(chromedp.Click(css(row + ` button[data-act="resume"]`)))
	shopper.until(`document.querySelector('#status').textContent === 'Live'`, 5*time.Second)

	end := css(row + ` button[data-act="end"]`)
	admin.do(chromedp.Click(end))
	admin.until(`document.querySelector('`+row+` button[data-act="end"]').textContent.includes('again')`, 5*time.Second)
	if st := s.Call(t, "GET", "/api/v1/items/"+e2etest.Itoa(id), "", nil).Str("status"); st != "live" {
		t.Fatalf("one click on End now ended the sale: %s", st)
	}
	admin.do(chromedp.Click(end))
	admin.until(`document.querySelector('`+row+` [data-cell="status"]').textContent === 'ended' &&
		document.querySelector('`+row+` button[data-act="end"]').disabled`, 5*time.Second)
	shopper.until(`document.querySelector('#status').textContent === 'Ended' && document.querySelector('#buy').disabled`, 5*time.Second)

	// An ended sale's row offers Retire; a minute after the end has not
	// passed yet (purchases may still be on their way), and the row says so.
	retire := row + ` button[data-act="retire"]`
	admin.until(`!document.querySelector('`+retire+`').classList.contains('hidden')`, 5*time.Second)
	admin.do(chromedp.Click(css(retire)))
	admin.until(`document.querySelector('#table-msg').textContent.includes('less than a minute')`, 5*time.Second)
	if r := s.Call(t, "GET", "/api/v1/items/"+e2etest.Itoa(id), "", nil); r.Body["retired_at"] != nil || r.Str("status") != "ended" {
		t.Fatalf("the sale after a refused Retire: %s", r.Raw)
	}
	admin.shot("admin-ended")
	admin.do(chromedp.EmulateViewport(390, 844))
	admin.shot("admin-ended-phone")
}
