package browser

import (
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestBrowserSaleReport: an admin follows the dashboard's Report link of a
// sale that sold out and ended, and sees its sell-through curve drawn, its
// figures and the CSV link; signed out, the page points to the dashboard.
// Serial, like every browser test: see browser_test.go.
func TestBrowserSaleReport(t *testing.T) {
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk)
	opens := e2etest.T0.Add(time.Minute)
	id := s.Sale(t, 24, 1, opens, opens.Add(10*time.Minute))
	var bob, bobOrder string
	for i := range 24 { // one a quarter second, faster towards the end
		clk.Set(opens.Add(time.Duration(i*(60-i)) * 10 * time.Millisecond))
		who := "shopper" + strconv.Itoa(i)
		tok := e2etest.MintToken(t, who)
		r := s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", tok, nil)
		e2etest.Check(t, r, e2etest.Want{Status: 202})
		if i == 5 {
			bob, bobOrder = tok, r.Str("order_id")
		}
	}
	s.Settle(t, id)
	clk.Set(opens.Add(20 * time.Second))
	e2etest.Check(t, s.Call(t, "POST", "/api/v1/orders/"+bobOrder+"/cancel", bob, nil), e2etest.Want{Status: 200})

	b := newTab(t, s)
	b.open("/admin/sales/" + e2etest.Itoa(id) + "/report")
	b.until(`document.querySelector('#report-msg a[href="/admin"]') !== null`, 10*time.Second)

	b.adminSignIn()
	link := `#rows a[href="/admin/sales/` + e2etest.Itoa(id) + `/report"]`
	b.until(`document.querySelector('`+link+`') !== null`, 10*time.Second)
	b.shot("dashboard")
	clk.Set(opens.Add(time.Hour)) // the sale has ended
	b.do(chromedp.Click(css(link)))
	b.until(`document.querySelector('#curve canvas') !== null && Number(document.querySelector('#curve').dataset.points) > 2`, 10*time.Second)
	figures := map[string]string{
		`[data-figure="sold"]`:                    "23 / 24",
		`[data-figure="time_to_sell_out"]`:        "8.51 s",
		`[data-figure="rate_limited"]`:            "0",
		`#orders-table [data-row="confirmed"] td`: "23",
		`#cancels-table [data-row="shopper"] td`:  "1",
		`#report-status`:                          "ended",
	}
	for sel, want := range figures {
		if got := b.text(sel); got != want {
			b.shot("figures")
			t.Fatalf("%s shows %q, want %q", sel, got, want)
		}
	}
	if !b.eval(`document.querySelector('#csv').getAttribute('href') === '/api/v1/admin/items/` + e2etest.Itoa(id) + `/orders.csv'`) {
		t.Fatal("no CSV link")
	}
	b.do(chromedp.EmulateViewport(1280, 800))
	b.shot("desktop")
	b.do(chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	b.until(`document.querySelector('#curve canvas').getBoundingClientRect().right <= window.innerWidth`, 5*time.Second)
	b.shot("phone")
}
