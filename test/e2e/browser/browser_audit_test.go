package browser

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// Serial, like every browser test: see browser_test.go.
//
// An admin signed in to the dashboard edits a sale's price and re-warms it:
// the audit panel shows both within seconds, by the session's fingerprint,
// the price as before → after; "Older" pages back to the first entries and
// "Newest" returns.
func TestBrowserAuditPanel(t *testing.T) {
	clk := &e2etest.LiveClock{}
	s := e2etest.StartLive(t, clk)
	opens := clk.Now().Truncate(time.Second).Add(-time.Minute) // whole seconds, as the form edits them
	id := s.Sale(t, 10, 1, opens, opens.Add(time.Hour))
	path := "/api/v1/admin/items/" + e2etest.Itoa(id)
	for i := range 21 { // more than a page of the panel (20)
		e2etest.Check(t, s.Call(t, "PATCH", path, e2etest.AdminToken, map[string]int{"per_user_limit": 2 - i%2}), e2etest.Want{Status: 200})
	}

	b := newTab(t, s)
	b.adminSignIn()
	row := `#rows tr[data-item="` + e2etest.Itoa(id) + `"]`
	b.until(`document.querySelectorAll('#audit-rows tr[data-audit]').length === 20`, 10*time.Second)

	b.do(chromedp.Click(css(row + " button:nth-child(2)"))) // Edit
	b.until(`document.querySelector('#f-price').value === '129.00'`, 5*time.Second)
	b.do(chromedp.SetValue(css("#f-price"), "99.00"), chromedp.Click(css("#sale-form button[type=submit]")))
	b.until(`document.querySelector('#form-msg').textContent.includes('Saved')`, 5*time.Second)
	b.do(chromedp.Click(css(row + " button:nth-child(3)"))) // Re-warm
	b.until(`document.querySelector('#table-msg').textContent.includes('Re-warmed')`, 5*time.Second)

	// The newest two, in order, with who and what.
	first, second := `#audit-rows tr:nth-child(1)`, `#audit-rows tr:nth-child(2)`
	b.until(`document.querySelector('`+first+`')?.dataset.action === 'warm' &&
		document.querySelector('`+second+`')?.dataset.action === 'update'`, 5*time.Second)
	who := fingerprintOfTab(t, b)
	if got := b.text(second + " .a-who"); got != who {
		t.Errorf("panel names %q, want the session's fingerprint %q", got, who)
	}
	if got := b.text(second + " .a-change"); got != "price $129.00 → $99.00" {
		t.Errorf("update shows %q, want the price before and after only", got)
	}
	if got := b.text(second + " .a-sale"); got != "Aurora sneakers, limited run (#"+e2etest.Itoa(id)+")" {
		t.Errorf("sale shown as %q", got)
	}
	b.do(chromedp.EmulateViewport(1280, 800))
	b.shot("desktop")
	b.shotOf("#audit", "panel-desktop")
	b.do(chromedp.EmulateViewport(390, 844))
	b.shotOf("#audit", "panel-phone")
	b.do(chromedp.EmulateViewport(1280, 800))

	// 1 create + 21 updates + 2 from the page: the older page holds 4,
	// the first of them the sale's creation.
	b.do(chromedp.Click(css("#audit-older")))
	b.until(`document.querySelectorAll('#audit-rows tr[data-audit]').length === 4 &&
		document.querySelector('#audit-rows tr:last-child').dataset.action === 'create' &&
		document.querySelector('#audit-older').disabled`, 5*time.Second)
	b.do(chromedp.Click(css("#audit-newest")))
	b.until(`document.querySelectorAll('#audit-rows tr[data-audit]').length === 20 &&
		document.querySelector('`+first+`').dataset.action === 'warm'`, 5*time.Second)
}

// fingerprintOfTab is the audit fingerprint of the tab's dashboard session,
// computed from the cookie the browser holds.
func fingerprintOfTab(tb testing.TB, b *tab) string {
	tb.Helper()
	res, err := chromedp.Call(b.ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{b.base + "/admin"}})
	if err != nil {
		tb.Fatal(err)
	}
	for _, c := range res.Cookies {
		if c.Name == "seckill_admin" {
			return e2etest.Fingerprint("session", c.Value)
		}
	}
	tb.Fatal("the tab holds no admin session cookie")
	return ""
}

// shotOf saves a screenshot of the element sel beside shot's.
func (b *tab) shotOf(sel, name string) {
	png, err := chromedp.Run(b.ctx, chromedp.Screenshot(css(sel)))
	if err != nil {
		b.tb.Logf("screenshot %s: %v", name, err)
		return
	}
	dir := filepath.Join("..", "..", "..", "test-output", "screenshots")
	if err := os.WriteFile(filepath.Join(dir, b.tb.Name()+"-"+name+".png"), png, 0o644); err != nil {
		b.tb.Logf("screenshot %s: %v", name, err)
	}
}
