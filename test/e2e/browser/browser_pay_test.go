package browser

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestBrowserPayButton: the orders page offers the demo's Pay button only
// where the server takes it; in production (SECKILL_DEMO_PAYMENTS off) the
// shopper can cancel an unpaid order, and the payment provider pays it.
//
// Serial, like every browser test: see browser_test.go.
func TestBrowserPayButton(t *testing.T) {
	for _, demo := range []bool{true, false} {
		s := e2etest.Start(t, e2etest.NewClock(e2etest.T0), func(c *config.Config) { c.DemoPayments = demo })
		id := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
		order := e2etest.BuyConfirmed(t, s, id, "dana")[0]
		b := newTab(t, s)
		b.signInAt("dana")
		b.open("/orders")
		buttons := `[...document.querySelectorAll('#orders tr[data-order="` + order + `"] .actions button')].map(b => b.textContent).join(',')`
		b.until(buttons+` !== ''`, 10*time.Second)
		want := map[bool]string{true: "Pay,Cancel", false: "Cancel"}[demo]
		if !b.eval(buttons + ` === '` + want + `'`) {
			b.shot("buttons")
			t.Fatalf("demo payments %v: the order's buttons are not %s", demo, want)
		}
		// For a person to look at: the page on a desktop and a phone.
		b.do(chromedp.EmulateViewport(1280, 800))
		b.shot(fmt.Sprintf("demo-%v-desktop", demo))
		b.do(chromedp.EmulateViewport(390, 844))
		b.shot(fmt.Sprintf("demo-%v-phone", demo))
	}
}
