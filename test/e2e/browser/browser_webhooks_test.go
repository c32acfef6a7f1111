package browser

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// Serial, like every browser test: see browser_test.go.
//
// An admin watches the dashboard while the shop's receiver answers 500:
// the webhooks panel fills by itself with the deliveries that failed, each
// with the receiver's answer and the endpoint without its password. With
// the receiver fixed, Re-send on each takes it off the failed list, and the
// receiver gets every event.
func TestBrowserWebhooksPanel(t *testing.T) {
	recv := e2etest.NewHookReceiver(t)
	clk := &e2etest.LiveClock{}
	s := e2etest.Start(t, clk, func(c *config.Config) { c.PurchaseTokens = true }, e2etest.HooksTo(recv, time.Second))
	opens := clk.Now().Add(-time.Minute)
	ids := []int64{s.Sale(t, 10, 1, opens, opens.Add(time.Hour)), s.Sale(t, 10, 1, opens, opens.Add(time.Hour))}

	b := newTab(t, s)
	b.adminSignIn()
	b.until(`document.querySelector('#wh-failed').textContent === '0' &&
		document.querySelector('#wh-rows').textContent.includes('No failed deliveries')`, 10*time.Second)
	for _, id := range ids {
		s.PauseAndResume(t, id)
	}
	var events []string
	testenv.WaitFor(t, 15*time.Second, func() bool {
		failed, _ := s.Deliveries(t, "?state=failed")
		events = events[:0]
		for _, d := range failed {
			events = append(events, d["event_id"].(string))
		}
		return len(failed) == 4
	}, "the events never failed")
	// The panel refreshes by itself: no reload.
	b.until(`document.querySelectorAll('#wh-rows tr[data-seq]').length === 4 &&
		document.querySelector('#wh-failed').textContent === '4'`, 10*time.Second)
	first := `#wh-rows tr[data-seq]:first-child`
	if got := b.text(first + " .h-answer"); !strings.HasPrefix(got, "HTTP 500 · receiver answered 500") {
		t.Errorf("last answer shows %q", got)
	}
	if got := b.text(first + " .h-event"); got != "sale.resumed sale:"+e2etest.Itoa(ids[1])+events[0] {
		t.Errorf("event shows %q, want the newest, sale.resumed of the second sale, with its id %s", got, events[0])
	}
	for _, sel := range []string{first + " .h-endpoint", "#wh-endpoints"} {
		if got := b.text(sel); !strings.Contains(got, "shop:xxxxx@127.0.0.1") || strings.Contains(got, "hook-password") {
			t.Errorf("%s shows %q, want the endpoint with its password redacted", sel, got)
		}
	}
	b.do(chromedp.EmulateViewport(1280, 900))
	b.shot("desktop")
	b.shotOf("#webhooks", "panel-desktop")
	b.do(chromedp.EmulateViewport(390, 844))
	b.shot("phone")
	b.shotOf("#webhooks", "panel-phone")
	b.do(chromedp.EmulateViewport(1280, 900))

	recv.Status.Store(http.StatusOK)
	for left := 3; left >= 0; left-- { // oldest first, so each sale's events arrive in order
		b.do(chromedp.Click(css(`#wh-rows tr[data-seq]:last-child .h-act button`)))
		b.until(`document.querySelectorAll('#wh-rows tr[data-seq]').length === `+e2etest.Itoa(int64(left))+` &&
			document.querySelector('#wh-msg').textContent.startsWith('Re-sent')`, 5*time.Second)
	}
	b.until(`document.querySelector('#wh-failed').textContent === '0' &&
		document.querySelector('#wh-rows').textContent.includes('No failed deliveries')`, 10*time.Second)
	for _, id := range events {
		testenv.WaitFor(t, 10*time.Second, func() bool { return recv.Got(id) != "" }, "the receiver never got %s", id)
	}
	// The audit panel names each re-sent event.
	b.until(`document.querySelectorAll('#audit-rows tr[data-action="webhook_resend"]').length === 4`, 10*time.Second)
	if got := b.text(`#audit-rows tr:first-child .a-change`); !strings.HasPrefix(got, "sale.resumed "+events[0]) {
		t.Errorf("the newest re-send shows %q, want the event it re-sent, %s", got, events[0])
	}
	b.shotOf("#audit", "audit")
}

// With no endpoint configured the panel says so plainly, and names the
// setting.
func TestBrowserWebhooksPanelUnconfigured(t *testing.T) {
	s := e2etest.StartLive(t, &e2etest.LiveClock{})
	b := newTab(t, s)
	b.adminSignIn()
	b.until(`document.querySelector('#wh-endpoints').textContent.includes('No webhook endpoint configured (SECKILL_WEBHOOK_URL)') &&
		document.querySelector('#wh-failed').textContent === '0'`, 10*time.Second)
}
