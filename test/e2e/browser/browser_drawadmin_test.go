package browser

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// sameTime says whether the API's time field k of m is t.
func sameTime(m map[string]any, k string, t time.Time) bool {
	s, _ := m[k].(string)
	got, err := time.Parse(time.RFC3339Nano, s)
	return err == nil && got.Equal(t)
}

// Serial, like every browser test: see browser_test.go.
func TestBrowserAdminCreatesADraw(t *testing.T) {
	clk := &e2etest.LiveClock{}
	s := e2etest.StartLive(t, clk)
	// A draw whose entries are open already, to tell the phases apart.
	running := s.Call(t, "POST", "/api/v1/admin/items", e2etest.AdminToken, e2etest.DrawBody(clk.Now().Add(-time.Minute), e2etest.Size("One size", 4)))
	if running.Status != 201 {
		t.Fatalf("create a running draw: %s", running.Raw)
	}
	b := newTab(t, s)
	b.adminSignIn()

	b.do(chromedp.Click(css(`#sale-type input[value="draw"]`)))
	if !b.eval(`(() => {
		const f = document.querySelector('#sale-form'), shown = (sel) => document.querySelector(sel).checkVisibility();
		return f.classList.contains('draw') && f.elements.per_user_limit.disabled && f.elements.per_user_limit.value === '1' &&
			!shown('#f-room') && shown('#f-entries-open') && shown('#f-entries-close') && shown('#f-window') &&
			shown('#starts-hint') && f.elements.starts_at.value === '';
	})()`) {
		t.Fatal("the form in draw mode does not hide the limit and room, or lacks the draw's fields")
	}
	opens := clk.Now().Truncate(time.Minute).Add(time.Hour)
	closes, ends := opens.Add(90*time.Minute), opens.Add(5*time.Hour)
	b.do(chromedp.SendKeys(css("#f-name"), "Comet draw"), chromedp.SendKeys(css("#f-price"), "189.00"),
		chromedp.SetValue(css("#f-entries-open"), localInput(opens)),
		chromedp.SetValue(css("#f-entries-close"), localInput(opens.Add(-10*time.Minute))),
		chromedp.SetValue(css("#f-window"), "15"),
		chromedp.SetValue(css("#f-ends"), localInput(ends)),
		chromedp.Click(css("#add-variant")))
	last := "#vrows .vrow:last-child"
	b.fillRow(last, "EU 41", "5", "", "")
	b.do(chromedp.Click(css("#add-variant")))
	b.fillRow(last, "EU 42", "3", "", "")
	if b.eval(`document.querySelector('#vrows .vrow [name="v-limit"]').checkVisibility()`) {
		t.Fatal("a draw's variant rows show a per-shopper limit")
	}

	// Entries that close before they open: the answer lands on the close.
	b.do(chromedp.Click(css("#sale-form button[type=submit]")))
	b.until(`document.querySelector('.field-error[data-for="entries_close_at"]').textContent.includes('after entries_open_at') &&
		document.querySelector('#f-entries-close').getAttribute('aria-invalid') === 'true'`, 5*time.Second)
	b.shot("bad-window")

	b.do(chromedp.SetValue(css("#f-entries-close"), localInput(closes)))
	b.shot("form")
	b.do(chromedp.EmulateViewport(390, 844))
	b.shotOf("#sale-form", "form-phone")
	b.do(chromedp.EmulateViewport(1280, 900))
	b.do(chromedp.Click(css("#sale-form button[type=submit]")))
	b.until(`document.querySelector('#form-msg').textContent.includes('Created draw') &&
		document.querySelector('.field-error[data-for="entries_close_at"]').textContent === ''`, 5*time.Second)

	id := s.ItemByName(t, "Comet draw")
	it := s.Call(t, "GET", "/api/v1/items/"+e2etest.Itoa(id), "", nil).Body
	if it["mode"] != "draw" || !sameTime(it, "entries_open_at", opens) || !sameTime(it, "entries_close_at", closes) ||
		!sameTime(it, "starts_at", closes) || !sameTime(it, "ends_at", ends) || it["purchase_window_seconds"] != 900.0 ||
		it["per_user_limit"] != 1.0 || it["room_rate"] != 0.0 || it["price_cents"] != 18900.0 {
		t.Fatalf("the draw as created: %v", it)
	}
	if vs := s.VariantsOf(t, id); len(vs) != 2 || vs["EU 41"]["stock_total"] != 5.0 || vs["EU 42"]["stock_total"] != 3.0 {
		t.Fatalf("the draw's variants: %v", vs)
	}

	// The live table tells draws apart, and where each stands.
	row := func(id int64) string { return `#rows tr[data-item="` + e2etest.Itoa(id) + `"]` }
	b.until(`document.querySelector('`+row(id)+`')?.dataset.mode === 'draw' &&
		document.querySelector('`+row(id)+` .draw-phase[data-phase="upcoming"]')?.textContent.includes('entries open at') &&
		document.querySelector('`+row(int64(e2etest.Num(running.Body, "id")))+` .draw-phase[data-phase="entries_open"]')?.textContent.includes('entries open until') &&
		document.querySelectorAll('#rows tr.variant-row[data-of="`+e2etest.Itoa(id)+`"]').length === 2`, 5*time.Second)
	b.shot("list")
	b.shotOf("#dashboard > .table-wrap", "table")
	b.do(chromedp.EmulateViewport(390, 844))
	b.shot("list-phone")
	b.shotOf("#dashboard > .table-wrap", "table-phone")
	b.do(chromedp.EmulateViewport(1280, 900))

	// Editing a draw shows its type and times, which no longer change.
	b.do(chromedp.Click(css(row(id) + " button:nth-child(2)"))) // Edit
	b.until(`document.querySelector('#form-title').textContent.includes('Comet draw')`, 5*time.Second)
	if !b.eval(`(() => {
		const f = document.querySelector('#sale-form');
		return f.classList.contains('draw') && f.elements.mode.value === 'draw' && document.querySelector('#sale-type input[value="draw"]').disabled &&
			f.elements.entries_close_at.disabled && f.elements.entries_close_at.value === '` + localInput(closes) + `' &&
			f.elements.purchase_window.value === '15' && f.elements.purchase_window_unit.value === '60';
	})()`) {
		v, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(() => { const f = document.querySelector('#sale-form');
			return JSON.stringify([f.className, f.elements.mode.value, f.elements.entries_close_at.disabled, f.elements.entries_close_at.value,
				f.elements.purchase_window.value, f.elements.purchase_window_unit.value]); })()`))
		t.Fatalf("editing the draw does not show its type, times and window, fixed: %s", v)
	}
}
