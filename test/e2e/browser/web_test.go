package browser

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

type css = chromedp.CSS

// purchases reads the server's purchase counter for one outcome.
func purchases(tb testing.TB, s *e2etest.Server, outcome string) int {
	tb.Helper()
	m := s.Call(tb, "GET", "/metrics", "", nil).Raw
	re := regexp.MustCompile(`seckill_purchases_total\{outcome="` + outcome + `"\} (\d+)`)
	if sub := re.FindStringSubmatch(m); sub != nil {
		n, _ := strconv.Atoi(sub[1])
		return n
	}
	return 0
}

// Serial, like every browser test: see browser_test.go.
func TestBrowserShopperBuysAtOpening(t *testing.T) {
	clk := &e2etest.LiveClock{Offset: time.Hour}
	s := e2etest.StartLive(t, clk)
	b := newTab(t, s)
	b.open("/")
	b.do(chromedp.WaitVisible(css("#signin-form")), chromedp.SendKeys(css("#user-id"), "alice"), chromedp.Click(css("#signin-form button[type=submit]")))
	b.until(`!!document.querySelector('#who .who')`, 10*time.Second)

	// Created after sign-in, so a slow machine cannot use up the countdown.
	opens := clk.Now().Add(8 * time.Second).Truncate(time.Millisecond)
	id := s.Sale(t, 3, 2, opens, opens.Add(time.Hour))
	card := `[data-item="` + e2etest.Itoa(id) + `"]`
	b.until(`document.querySelector('`+card+` .countdown')?.textContent > ''`, 5*time.Second)
	left := parseCountdown(t, b.text(card+" .countdown"))
	if when := b.text(card + " .when"); when != "Opens in" || left > 8*time.Second || left <= 0 {
		t.Fatalf("card says %q %v, want \"Opens in\" at most 8s on the server's clock (the browser's is an hour behind)", when, left)
	}
	b.shot("list")

	b.open("/sale/" + e2etest.Itoa(id))
	b.until(`document.querySelector('#buy').dataset.state === 'upcoming'`, 10*time.Second)
	if !b.eval(`document.querySelector('#buy').disabled`) {
		t.Fatal("Buy is enabled before the sale opens")
	}
	b.shot("countdown")
	b.until(`!document.querySelector('#buy').disabled`, 15*time.Second)
	if early := opens.Sub(clk.Now()); early > 300*time.Millisecond {
		t.Fatalf("Buy enabled %v before the opening second", early)
	}
	if late := clk.Now().Sub(opens); late > 1500*time.Millisecond {
		t.Fatalf("Buy enabled %v after the opening second", late)
	}

	b.do(chromedp.Click(css("#buy")))
	b.until(`document.querySelector('#order-status').textContent === 'confirmed'`, 10*time.Second)
	if msg := b.text("#message"); !strings.Contains(msg, "Done") {
		t.Fatalf("after buying the page says %q", msg)
	}
	b.shot("confirmed")

	// The second try is made with the keyboard alone.
	b.do(chromedp.Focus(css("#buy")), chromedp.KeyEvent("\r"))
	b.until(`document.querySelector('#message').textContent.includes('already bought')`, 10*time.Second)
	b.shot("already-bought")

	// On a phone-sized screen nothing overflows sideways.
	b.do(chromedp.EmulateViewport(390, 844))
	b.until(`document.documentElement.scrollWidth <= window.innerWidth`, 5*time.Second)
	b.shot("phone")
	b.open("/")
	b.until(`document.querySelectorAll('[data-item]').length === 1 && document.documentElement.scrollWidth <= window.innerWidth`, 5*time.Second)
	b.shot("phone-list")
}

// Serial, like every browser test: see browser_test.go.
func TestBrowserDoubleClickSendsOneOrder(t *testing.T) {
	clk := &e2etest.LiveClock{}
	s := e2etest.StartLive(t, clk)
	id := s.Sale(t, 5, 1, clk.Now().Add(-time.Minute), clk.Now().Add(time.Hour))
	b := newTab(t, s)
	b.open("/")
	b.do(chromedp.WaitVisible(css("#signin-form")), chromedp.SendKeys(css("#user-id"), "bob"), chromedp.Click(css("#signin-form button[type=submit]")))
	b.until(`!!document.querySelector('#who .who')`, 10*time.Second)
	b.open("/sale/" + e2etest.Itoa(id))
	b.until(`!document.querySelector('#buy').disabled`, 10*time.Second)
	before := purchases(t, s, "already_purchased")
	b.do(chromedp.DoubleClick(css("#buy")))
	b.until(`document.querySelector('#order-status').textContent === 'confirmed'`, 10*time.Second)
	if msg := b.text("#message"); !strings.Contains(msg, "Done") {
		t.Fatalf("after a double click the page says %q", msg)
	}
	if n := purchases(t, s, "already_purchased") - before; n != 0 {
		t.Fatalf("a double click sent %d extra purchase requests", n)
	}
	if orders := s.OrderIDs(t, id); len(orders) != 1 {
		t.Fatalf("%d orders after a double click, want 1", len(orders))
	}
}

// Serial, like every browser test: see browser_test.go.
func TestBrowserSoldOut(t *testing.T) {
	clk := &e2etest.LiveClock{}
	s := e2etest.StartLive(t, clk)
	id := s.Sale(t, 1, 1, clk.Now().Add(-time.Minute), clk.Now().Add(time.Hour))
	e2etest.Check(t, s.BuyWithToken(t, id, "early-bird"), e2etest.Want{Status: 202})
	b := newTab(t, s)
	b.open("/sale/" + e2etest.Itoa(id))
	b.until(`document.querySelector('#message').textContent.includes('Sold out')`, 10*time.Second)
	if !b.eval(`document.querySelector('#buy').disabled`) || b.text("#status") != "Sold out" {
		t.Fatalf("sold-out page: buy enabled or status %q", b.text("#status"))
	}
	b.shot("sold-out")
}

// Serial, like every browser test: see browser_test.go.
func TestBrowserAdminDashboard(t *testing.T) {
	clk := &e2etest.LiveClock{}
	s := e2etest.StartLive(t, clk)
	b := newTab(t, s)
	b.open("/admin")
	b.do(chromedp.WaitVisible(css("#admin-signin-form")), chromedp.SendKeys(css("#admin-token"), e2etest.AdminToken),
		chromedp.Click(css("#admin-signin-form button[type=submit]")), chromedp.WaitVisible(css("#dashboard")))
	if b.eval(`document.cookie.includes('seckill_admin') || localStorage.length > 0 || location.href.includes('token')`) {
		t.Fatal("the admin session is readable by scripts, stored, or in the URL")
	}

	// The API's validation message reaches the field at fault.
	b.do(chromedp.SendKeys(css("#f-name"), "Storm lamp"), chromedp.SendKeys(css("#f-price"), "12.50"),
		chromedp.SendKeys(css("#f-stock"), "0"), chromedp.Click(css("#sale-form button[type=submit]")))
	b.until(`document.querySelector('.field-error[data-for="stock_total"]').textContent.includes('stock_total')`, 5*time.Second)
	b.shot("validation")

	b.do(chromedp.SetValue(css("#f-stock"), "20"), chromedp.SetValue(css("#f-starts"), localInput(clk.Now().Add(-time.Minute))),
		chromedp.Click(css("#sale-form button[type=submit]")))
	b.until(`document.querySelector('#form-msg').textContent.includes('Created')`, 5*time.Second)
	b.until(`[...document.querySelectorAll('#rows td[data-cell="name"]')].some(td => td.textContent === 'Storm lamp')`, 5*time.Second)
	id := s.ItemByName(t, "Storm lamp")
	row := `#rows tr[data-item="` + e2etest.Itoa(id) + `"]`
	b.do(chromedp.Click(css(row + " button")))

	for i := range 7 {
		e2etest.Check(t, s.BuyWithToken(t, id, "dash"+strconv.Itoa(i)), e2etest.Want{Status: 202})
	}
	bought := time.Now()
	b.until(`document.querySelector('`+row+` [data-cell="sold"]').textContent === '7'`, 3*time.Second)
	if d := time.Since(bought); d > 2*time.Second {
		t.Fatalf("purchases reached the dashboard after %v, want within 2s", d)
	}
	b.until(`document.querySelector('`+row+` [data-cell="stock_redis"]').textContent === '13' && Number(document.querySelector('#chart').dataset.points) >= 2`, 5*time.Second)
	if !b.eval(`!!document.querySelector('#chart canvas')`) {
		t.Fatal("the chart drew no canvas")
	}
	if inv := b.text(row + ` [data-cell="invariants"]`); !strings.Contains(inv, "consistent") {
		t.Fatalf("invariants cell = %q", inv)
	}
	b.shot("dashboard")
}

// Serial, like every browser test: see browser_test.go.
func TestBrowserAdminWrongToken(t *testing.T) {
	s := e2etest.StartLive(t, &e2etest.LiveClock{})
	b := newTab(t, s)
	b.open("/admin")
	b.do(chromedp.WaitVisible(css("#admin-signin-form")), chromedp.SendKeys(css("#admin-token"), "not-the-token"),
		chromedp.Click(css("#admin-signin-form button[type=submit]")))
	b.until(`document.querySelector('#admin-signin-msg').textContent.includes('not right')`, 5*time.Second)
	if b.eval(`!document.querySelector('#dashboard').classList.contains('hidden')`) {
		t.Fatal("dashboard shown after a wrong token")
	}
	b.shot("refused")
}

var countdownRE = regexp.MustCompile(`^(?:(\d+)d )?(\d\d):(\d\d):(\d\d)$`)

func parseCountdown(tb testing.TB, s string) time.Duration {
	tb.Helper()
	m := countdownRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		tb.Fatalf("countdown %q is not [Nd ]HH:MM:SS", s)
	}
	n := func(i int) time.Duration { v, _ := strconv.Atoi(m[i]); return time.Duration(v) }
	return n(1)*24*time.Hour + n(2)*time.Hour + n(3)*time.Minute + n(4)*time.Second
}

// localInput formats t for a datetime-local input in the browser's zone,
// which for the test's Chromium is the machine's.
// localInput is t as a datetime-local input holds it: Chromium drops
// ":00" seconds from the value, and chromedp's SetValue fails when the
// value read back differs from the one set.
func localInput(t time.Time) string {
	if t.Second() == 0 {
		return t.Local().Format("2006-01-02T15:04")
	}
	return t.Local().Format("2006-01-02T15:04:05")
}

// Serial, like every browser test: see browser_test.go.
func TestBrowserPayAndCancel(t *testing.T) {
	clk := &e2etest.LiveClock{}
	s := e2etest.StartLive(t, clk)
	id := s.Sale(t, 2, 1, clk.Now().Add(-time.Minute), clk.Now().Add(time.Hour))
	b := newTab(t, s)
	b.open("/")
	b.do(chromedp.WaitVisible(css("#signin-form")), chromedp.SendKeys(css("#user-id"), "carol"),
		chromedp.Click(css("#signin-form button[type=submit]")))
	b.until(`!!document.querySelector('#who .who')`, 10*time.Second)
	b.open("/sale/" + e2etest.Itoa(id))
	b.until(`!document.querySelector('#buy').disabled`, 10*time.Second)
	b.do(chromedp.Click(css("#buy")))
	b.until(`document.querySelector('#order-status').textContent === 'confirmed'`, 10*time.Second)

	b.open("/orders")
	b.until(`document.querySelectorAll('#orders tr').length === 1 && !!document.querySelector('#orders button')`, 10*time.Second)
	b.do(chromedp.Click(css("#orders button:not(.primary)"))) // Cancel
	b.until(`document.querySelector('#orders .badge').textContent === 'cancelled'`, 10*time.Second)
	b.shot("cancelled")
	if st := s.Settle(t, id); st.Body["stock_redis"].(float64) != 2 || st.Body["consistent"] != true {
		t.Fatalf("after cancelling in the browser: %s", st.Raw)
	}

	b.open("/sale/" + e2etest.Itoa(id)) // buy again, then pay
	b.until(`!document.querySelector('#buy').disabled`, 10*time.Second)
	b.do(chromedp.Click(css("#buy")))
	b.until(`document.querySelector('#order-status').textContent === 'confirmed'`, 10*time.Second)
	b.open("/orders")
	b.until(`!!document.querySelector('#orders button.primary')`, 10*time.Second)
	b.do(chromedp.Click(css("#orders button.primary"))) // Pay
	b.until(`[...document.querySelectorAll('#orders .badge')].some(e => e.textContent === 'paid')`, 10*time.Second)
	b.shot("paid")
}
