package app_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/seckill/seckill/internal/config"
)

// TestBrowserPayButton: the orders page offers the demo's Pay button only
// where the server takes it; in production (SECKILL_DEMO_PAYMENTS off) the
// shopper can cancel an unpaid order, and the payment provider pays it.
//
// Serial, like every browser test: see browser_test.go.
func TestBrowserPayButton(t *testing.T) {
	for _, demo := range []bool{true, false} {
		s := start(t, newClock(t0), func(c *config.Config) { c.DemoPayments = demo })
		id := s.sale(t, 5, 1, t0, t0.Add(time.Hour))
		order := buyConfirmed(t, s, id, "dana")[0]
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
