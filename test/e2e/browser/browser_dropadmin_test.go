package browser

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// adminSignIn signs the tab in on the dashboard.
func (b *tab) adminSignIn() {
	b.tb.Helper()
	b.open("/admin")
	b.do(chromedp.WaitVisible(css("#admin-signin-form")), chromedp.SendKeys(css("#admin-token"), e2etest.AdminToken),
		chromedp.Click(css("#admin-signin-form button[type=submit]")), chromedp.WaitVisible(css("#dashboard")))
}

// fillRow types into the variant row sel; blank values are skipped.
func (b *tab) fillRow(sel string, label, stock, price, limit string) {
	b.tb.Helper()
	for name, v := range map[string]string{"label": label, "stock": stock, "price": price, "limit": limit} {
		if v != "" {
			b.do(chromedp.SetValue(css(sel+` [name="v-`+name+`"]`), v))
		}
	}
}

// Serial, like every browser test: see browser_test.go.
func TestBrowserAdminCreatesADrop(t *testing.T) {
	clk := &e2etest.LiveClock{}
	s := e2etest.StartLive(t, clk)
	b := newTab(t, s)
	b.adminSignIn()

	b.do(chromedp.SendKeys(css("#f-name"), "Comet high-top"), chromedp.SendKeys(css("#f-price"), "149.00"),
		chromedp.SendKeys(css("#f-image"), "/static/img/sneaker.svg"),
		chromedp.SetValue(css("#f-starts"), localInput(clk.Now().Add(time.Hour))),
		chromedp.SetValue(css("#f-ends"), localInput(clk.Now().Add(2*time.Hour))),
		chromedp.Click(css("#add-variant")))
	last := "#vrows .vrow:last-child"
	b.fillRow(last, "EU 41", "", "", "")
	if !b.eval(`document.querySelector('#stock-field').classList.contains('hidden')`) {
		t.Fatal("the sale's own Stock field is shown beside variant rows")
	}
	// The API's answer about a row lands on that row.
	b.do(chromedp.Click(css("#sale-form button[type=submit]")))
	b.until(`document.querySelector('#vrows .vrow:first-child .vrow-msg').textContent.includes('stock_total')`, 5*time.Second)
	b.fillRow(last, "", "10", "", "")
	b.do(chromedp.Click(css("#add-variant")))
	b.fillRow(last, "EU 42", "12", "159.00", "")
	b.do(chromedp.Click(css("#add-variant")))
	b.fillRow(last, "EU 43", "8", "", "1")
	b.shot("form")
	b.do(chromedp.Click(css("#sale-form button[type=submit]")))
	b.until(`document.querySelector('#form-msg').textContent.includes('Created') && document.querySelector('#form-msg').textContent.includes('3 variants')`, 5*time.Second)

	id := s.ItemByName(t, "Comet high-top")
	vs := s.VariantsOf(t, id)
	if len(vs) != 3 || vs["EU 42"]["price_cents"] != 15900.0 || vs["EU 43"]["per_user_limit"] != 1.0 || vs["EU 41"]["stock_total"] != 10.0 {
		t.Fatalf("created variants %v", vs)
	}
	if img := s.Call(t, "GET", "/api/v1/items/"+e2etest.Itoa(id), "", nil).Str("image_url"); img != "/static/img/sneaker.svg" {
		t.Fatalf("sale image_url %q", img)
	}

	// The dashboard lists each variant under its sale.
	vrow := func(label string) string {
		return `#rows tr.variant-row[data-of="` + e2etest.Itoa(id) + `"][data-variant="` + e2etest.Itoa(int64(vs[label]["id"].(float64))) + `"]`
	}
	b.until(`document.querySelectorAll('#rows tr.variant-row[data-of="`+e2etest.Itoa(id)+`"]').length === 3 &&
		document.querySelector('`+vrow("EU 42")+` [data-cell="stock_total"]').textContent === '12' &&
		document.querySelector('`+vrow("EU 42")+` [data-cell="name"]').textContent === 'EU 42' &&
		document.querySelector('`+vrow("EU 42")+` [data-cell="invariants"]').textContent.includes('consistent')`, 5*time.Second)
	row := `#rows tr[data-item="` + e2etest.Itoa(id) + `"]`
	b.do(chromedp.Click(css(row + " button"))) // Chart
	b.until(`document.querySelector('#chart').dataset.variants === '3' && !!document.querySelector('#chart canvas')`, 5*time.Second)
	b.shot("dashboard")

	// Before the opening, rows come and go one at a time.
	b.do(chromedp.Click(css(row + " button:nth-child(2)"))) // Edit
	b.until(`document.querySelectorAll('#vrows .vrow[data-variant]:not([data-variant=""])').length === 3`, 5*time.Second)
	b.do(chromedp.Click(css("#add-variant")))
	b.fillRow(last, "EU 44", "5", "", "")
	b.do(chromedp.Click(css(last + " .c-actions button.primary"))) // Add
	b.until(`document.querySelector('`+last+` .vrow-msg').textContent === 'Added.'`, 5*time.Second)
	eu43 := `#vrows .vrow[data-variant="` + e2etest.Itoa(int64(vs["EU 43"]["id"].(float64))) + `"]`
	b.do(chromedp.Click(css(eu43 + " .c-actions button:not(.primary)"))) // Remove
	b.until(`!document.querySelector('`+eu43+`')`, 5*time.Second)
	eu41 := `#vrows .vrow[data-variant="` + e2etest.Itoa(int64(vs["EU 41"]["id"].(float64))) + `"]`
	b.do(chromedp.SetValue(css(eu41+` [name="v-stock"]`), "15"), chromedp.Click(css(eu41+" .c-actions button.primary")))
	b.until(`document.querySelector('`+eu41+` .vrow-msg').textContent === 'Saved.'`, 5*time.Second)
	vs = s.VariantsOf(t, id)
	if _, gone := vs["EU 43"]; gone || len(vs) != 3 || vs["EU 44"]["stock_total"] != 5.0 || vs["EU 41"]["stock_total"] != 15.0 {
		t.Fatalf("after editing rows the variants are %v", vs)
	}
	b.shot("edited")
}

// Serial, like every browser test: see browser_test.go.
func TestBrowserAdminVariantStockConflict(t *testing.T) {
	clk := &e2etest.LiveClock{}
	s := e2etest.StartLive(t, clk)
	id, v := s.PageDrop(t, "Open drop", 9900, 1, "", clk.Now().Add(-time.Minute),
		e2etest.DropVariant{Label: "S", Stock: 3}, e2etest.DropVariant{Label: "M", Stock: 3})
	e2etest.Check(t, s.PageBuy(t, id, v["S"], "one"), e2etest.Want{Status: 202})
	e2etest.Check(t, s.PageBuy(t, id, v["S"], "two"), e2etest.Want{Status: 202})
	s.Settle(t, id)

	b := newTab(t, s)
	b.adminSignIn()
	row := `#rows tr[data-item="` + e2etest.Itoa(id) + `"]`
	small := `#vrows .vrow[data-variant="` + e2etest.Itoa(v["S"]) + `"]`
	b.until(`document.querySelector('#rows tr.variant-row[data-variant="`+e2etest.Itoa(v["S"])+`"] [data-cell="sold"]')?.textContent === '2'`, 5*time.Second)
	b.do(chromedp.Click(css(row + " button:nth-child(2)"))) // Edit
	b.until(`!!document.querySelector('`+small+`')`, 5*time.Second)
	// The sale has opened: its variants change but cannot come or go.
	if !b.eval(`document.querySelector('#add-variant').disabled && document.querySelector('` + small + ` .c-actions button:not(.primary)').disabled`) {
		t.Fatal("variants can be added or removed on an open sale")
	}

	b.do(chromedp.SetValue(css(small+` [name="v-stock"]`), "1"), chromedp.Click(css(small+" .c-actions button.primary")))
	b.until(`document.querySelector('`+small+` .vrow-msg').textContent.includes('Stock conflict') &&
		document.querySelector('`+small+` [name="v-stock"]').getAttribute('aria-invalid') === 'true'`, 5*time.Second)
	if msg := b.text(small + " .vrow-msg"); !strings.Contains(msg, "(2 sold)") {
		t.Fatalf("the conflict says %q, want the units sold", msg)
	}
	if got := s.VariantsOf(t, id)["S"]["stock_total"]; got != 3.0 {
		t.Fatalf("S has stock_total %v after a refused change, want 3", got)
	}
	b.shot("conflict")

	b.do(chromedp.SetValue(css(small+` [name="v-stock"]`), "4"), chromedp.Click(css(small+" .c-actions button.primary")))
	b.until(`document.querySelector('`+small+` .vrow-msg').textContent === 'Saved.'`, 5*time.Second)
	if got := s.VariantsOf(t, id)["S"]["stock_total"]; got != 4.0 {
		t.Fatalf("S has stock_total %v, want 4", got)
	}
}
