package browser

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// variantButton selects the picker's button of a variant.
func variantButton(id int64) string { return `#variants [data-variant="` + e2etest.Itoa(id) + `"]` }

// recordBodies makes the page keep the body of every request it sends.
const recordBodies = `(() => { window.__bodies = []; const f = window.fetch;
  window.fetch = (u, init) => { if (init && init.body) window.__bodies.push(init.body); return f(u, init); }; return true; })()`

// holdList makes the page's refreshes of the sale list hang, as on a slow
// network: what it shows of the stock goes stale. releaseList ends that.
const holdList = `(() => { window.__hold = true; const f = window.fetch;
  window.fetch = (u, init) => (window.__hold && u === '/api/v1/items' ? new Promise(() => {}) : f(u, init)); return true; })()`
const releaseList = `(() => { window.__hold = false; return true; })()`

// Serial, like every browser test: see browser_test.go.
func TestBrowserDropShopperPicksASize(t *testing.T) {
	clk := &e2etest.LiveClock{}
	s := e2etest.StartLive(t, clk)
	id, v := s.PageDrop(t, "Aurora runner, drop 07", 12900, 2, "/static/img/sneaker.svg", clk.Now().Add(-time.Minute),
		e2etest.DropVariant{Label: "EU 41", Stock: 5},
		e2etest.DropVariant{Label: "EU 42", Stock: 3, Price: 13900, Limit: 1, Image: "/static/img/sneaker-night.svg"},
		e2etest.DropVariant{Label: "EU 43", Stock: 1})
	e2etest.Check(t, s.PageBuy(t, id, v["EU 43"], "early-bird"), e2etest.Want{Status: 202})

	b := newTab(t, s)
	b.signInAt("dana")
	b.open("/sale/" + e2etest.Itoa(id))
	b.until(`document.querySelectorAll('#variants button.variant').length === 3 && document.querySelector('#buy').dataset.state === 'live'`, 10*time.Second)
	if !b.eval(`document.querySelector('#buy').disabled`) || !strings.Contains(b.text("#message"), "Choose a size") {
		t.Fatalf("before a size is chosen Buy is enabled or the page says %q", b.text("#message"))
	}
	if p := b.text("#price"); p != "from $129.00" {
		t.Fatalf("price before a choice %q, want the lowest as \"from $129.00\"", p)
	}
	// The sale's picture loads (the CSP lets it) and is set as a property.
	b.until(`document.querySelector('#image').naturalWidth > 0 && document.querySelector('#image').src.endsWith('/static/img/sneaker.svg')`, 5*time.Second)

	sold := variantButton(v["EU 43"])
	b.until(`document.querySelector('`+sold+`').disabled && getComputedStyle(document.querySelector('`+sold+` .v-label')).textDecorationLine.includes('line-through')`, 5*time.Second)
	if txt := b.text(sold); !strings.Contains(txt, "Sold out") {
		t.Fatalf("sold-out size reads %q", txt)
	}

	// EU 42 has its own price, limit and picture.
	b.do(chromedp.Click(css(variantButton(v["EU 42"]))))
	b.until(`document.querySelector('#price').textContent === '$139.00' && document.querySelector('#quantity').options.length === 1 &&
		document.querySelector('#image').src.endsWith('/static/img/sneaker-night.svg') && document.querySelector('#image').naturalWidth > 0 &&
		!document.querySelector('#buy').disabled`, 5*time.Second)
	if l, n := b.text("#stock-label"), b.text("#stock"); l != "Left in EU 42" || n != "3 / 3" {
		t.Fatalf("stock shown as %q %q, want EU 42's", l, n)
	}
	b.shot("picked")

	b.eval(recordBodies)
	b.do(chromedp.Click(css("#buy")))
	b.until(`document.querySelector('#order-status').textContent === 'confirmed'`, 10*time.Second)
	if msg := b.text("#message"); !strings.Contains(msg, "EU 42") {
		t.Fatalf("after buying the page says %q", msg)
	}
	if body := `{"variant_id":` + e2etest.Itoa(v["EU 42"]) + `,"quantity":1}`; !b.eval(`window.__bodies.includes('` + body + `')`) {
		t.Fatalf("the page did not send the purchase body %s", body)
	}

	// Each size's stock stays live.
	e2etest.Check(t, s.PageBuy(t, id, v["EU 41"], "other"), e2etest.Want{Status: 202})
	b.until(`document.querySelector('`+variantButton(v["EU 41"])+` .v-stock').textContent === '4 left'`, 5*time.Second)
	b.shot("bought")

	b.do(chromedp.EmulateViewport(390, 844))
	b.until(`document.documentElement.scrollWidth <= window.innerWidth`, 5*time.Second)
	b.shot("phone")
	b.do(chromedp.EmulateViewport(1280, 900))

	b.open("/orders")
	b.until(`[...document.querySelectorAll('#orders tr')].some(tr => tr.querySelector('.variant-label')?.textContent === 'EU 42')`, 10*time.Second)
	b.shot("orders")
	for _, vs := range s.Settle(t, id).Body["variants"].([]any) {
		m := vs.(map[string]any)
		if want := map[string]float64{"EU 41": 1, "EU 42": 1, "EU 43": 1}[m["label"].(string)]; m["sold"].(float64) != want {
			t.Fatalf("variant %v sold %v, want %v", m["label"], m["sold"], want)
		}
	}
}

// Serial, like every browser test: see browser_test.go.
func TestBrowserDropSoldOutSizeMovesChoice(t *testing.T) {
	clk := &e2etest.LiveClock{}
	s := e2etest.StartLive(t, clk)
	id, v := s.PageDrop(t, "Last pairs", 9900, 1, "", clk.Now().Add(-time.Minute),
		e2etest.DropVariant{Label: "EU 40", Stock: 1}, e2etest.DropVariant{Label: "EU 41", Stock: 5})
	b := newTab(t, s)
	b.signInAt("erin")
	b.open("/sale/" + e2etest.Itoa(id))
	b.until(`!!document.querySelector('`+variantButton(v["EU 40"])+`')`, 10*time.Second)
	b.do(chromedp.Click(css(variantButton(v["EU 40"]))))
	b.until(`!document.querySelector('#buy').disabled`, 5*time.Second)

	// The page still shows EU 40's last pair when another shopper takes it.
	b.eval(holdList)
	e2etest.Check(t, s.PageBuy(t, id, v["EU 40"], "rival"), e2etest.Want{Status: 202})
	b.do(chromedp.Click(css("#buy")))
	b.until(`document.querySelector('#message').textContent.includes('EU 40 just sold out') &&
		document.querySelector('`+variantButton(v["EU 41"])+`').getAttribute('aria-pressed') === 'true' &&
		document.querySelector('`+variantButton(v["EU 40"])+`').disabled`, 10*time.Second)
	b.shot("moved")
	if orders, _ := s.Call(t, "GET", "/api/v1/orders", e2etest.MintToken(t, "erin"), nil).Body["orders"].([]any); len(orders) != 0 {
		t.Fatalf("erin holds %d orders after a sold-out answer", len(orders))
	}

	b.eval(releaseList)
	b.do(chromedp.Click(css("#buy")))
	b.until(`document.querySelector('#order-status').textContent === 'confirmed' && document.querySelector('#message').textContent.includes('EU 41')`, 10*time.Second)

	// When every size is gone the answer lists none: the page says sold out.
	id2, v2 := s.PageDrop(t, "Two last pairs", 9900, 1, "", clk.Now().Add(-time.Minute),
		e2etest.DropVariant{Label: "S", Stock: 1}, e2etest.DropVariant{Label: "M", Stock: 1})
	b.open("/sale/" + e2etest.Itoa(id2))
	b.until(`!!document.querySelector('`+variantButton(v2["S"])+`')`, 10*time.Second)
	b.do(chromedp.Click(css(variantButton(v2["S"]))))
	b.until(`!document.querySelector('#buy').disabled`, 5*time.Second)
	b.eval(holdList)
	e2etest.Check(t, s.PageBuy(t, id2, v2["S"], "rival-s"), e2etest.Want{Status: 202})
	e2etest.Check(t, s.PageBuy(t, id2, v2["M"], "rival-m"), e2etest.Want{Status: 202})
	b.do(chromedp.Click(css("#buy")))
	b.until(`document.querySelector('#message').textContent.includes('Sold out') && document.querySelector('#buy').disabled &&
		[...document.querySelectorAll('#variants button.variant')].every(b => b.disabled)`, 10*time.Second)
	b.shot("all-gone")
}

// Serial, like every browser test: see browser_test.go.
func TestBrowserDropCards(t *testing.T) {
	clk := &e2etest.LiveClock{}
	s := e2etest.StartLive(t, clk)
	from, _ := s.PageDrop(t, "Sizes at two prices", 12900, 1, "/static/img/sneaker.svg", clk.Now().Add(-time.Minute),
		e2etest.DropVariant{Label: "EU 41", Stock: 3}, e2etest.DropVariant{Label: "EU 46", Stock: 3, Price: 11900})
	same, _ := s.PageDrop(t, "Sizes at one price", 9900, 1, "", clk.Now().Add(-time.Minute),
		e2etest.DropVariant{Label: "S", Stock: 3}, e2etest.DropVariant{Label: "M", Stock: 3})
	plain := s.Sale(t, 5, 1, clk.Now().Add(-time.Minute), clk.Now().Add(time.Hour))

	b := newTab(t, s)
	b.open("/")
	card := func(id int64) string { return `[data-item="` + e2etest.Itoa(id) + `"]` }
	b.until(`document.querySelectorAll('[data-item]').length === 3 && document.querySelector('`+card(from)+` .thumb img').naturalWidth > 0`, 10*time.Second)
	for _, c := range []struct {
		id    int64
		price string
		image bool
	}{{from, "from $119.00", true}, {same, "$99.00", false}, {plain, "$129.00", false}} {
		if p := b.text(card(c.id) + " .price"); p != c.price {
			t.Errorf("card %d price %q, want %q", c.id, p, c.price)
		}
		if shown := b.eval(`!document.querySelector('` + card(c.id) + ` .thumb').classList.contains('hidden')`); shown != c.image {
			t.Errorf("card %d shows a picture: %v, want %v", c.id, shown, c.image)
		}
	}
	b.shot("cards")
	b.do(chromedp.EmulateViewport(390, 844))
	b.until(`document.documentElement.scrollWidth <= window.innerWidth`, 5*time.Second)
	b.shot("cards-phone")
}
