package drop

import (
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestSizeSoldOutMarkLiftsOnEveryServer: server b marks one size of a drop
// sold out, answering later tries without Redis and offering the other
// size; a cancel of that size on server a, then an admin adding to it
// through a, each sell it again on b at once, though b's mark would last an
// hour.
func TestSizeSoldOutMarkLiftsOnEveryServer(t *testing.T) {
	t.Parallel()
	clk := &e2etest.LiveClock{}
	a := e2etest.Start(t, clk, func(c *config.Config) { c.SoldOutTTL = time.Hour })
	b := a.Twin(t, clk)
	created := a.Call(t, "POST", "/api/v1/admin/items", e2etest.AdminToken, e2etest.DropBody(time.Now().Add(-time.Minute), e2etest.Size("S", 1), e2etest.Size("M", 5)))
	e2etest.Check(t, created, e2etest.Want{Status: 201})
	id, ids := int64(created.Body["id"].(float64)), e2etest.VariantIDs(t, created)
	path := "/api/v1/items/" + e2etest.Itoa(id) + "/purchase"
	small := `{"variant_id":` + e2etest.Itoa(ids["S"]) + `,"quantity":1}`

	bought := a.Call(t, "POST", path, e2etest.MintToken(t, "ann"), small)
	e2etest.Check(t, bought, e2etest.Want{Status: 202})
	for range 2 { // Redis answers, then b's mark does
		r := b.Call(t, "POST", path, e2etest.MintToken(t, "bob"), small)
		e2etest.Check(t, r, e2etest.Want{Status: 410, Code: "sold_out"})
		if availableVariants(r) != e2etest.Itoa(ids["M"]) {
			t.Fatalf("sold-out S offers %q, want M (%d)", availableVariants(r), ids["M"])
		}
	}
	if e2etest.Metric(t, b, "gated_sold_out") != 1 {
		t.Fatal("server b did not answer the second try from its mark")
	}
	e2etest.Check(t, b.Call(t, "POST", path, e2etest.MintToken(t, "bob"), `{"variant_id":`+e2etest.Itoa(ids["M"])+`,"quantity":1}`), e2etest.Want{Status: 202})

	a.Settle(t, id)
	e2etest.Check(t, a.Call(t, "POST", "/api/v1/orders/"+bought.Str("order_id")+"/cancel", e2etest.MintToken(t, "ann"), nil), e2etest.Want{Status: 200})
	e2etest.SellsAgainOn(t, b, path, small, "cat", "the cancel on a")
	e2etest.Check(t, b.Call(t, "POST", path, e2etest.MintToken(t, "dan"), small), e2etest.Want{Status: 410, Code: "sold_out"})

	r := a.Call(t, "PATCH", "/api/v1/admin/items/"+e2etest.Itoa(id)+"/variants/"+e2etest.Itoa(ids["S"]), e2etest.AdminToken, map[string]any{"stock_total": 2})
	e2etest.Check(t, r, e2etest.Want{Status: 200})
	e2etest.SellsAgainOn(t, b, path, small, "eve", "the admin added to S on a")
	if st := a.Settle(t, id); st.Body["sold"].(float64) != 3 || st.Body["consistent"] != true {
		t.Fatalf("stats: %s", st.Raw)
	}
}
