package app_test

import (
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
)

// TestSizeSoldOutMarkLiftsOnEveryServer: server b marks one size of a drop
// sold out, answering later tries without Redis and offering the other
// size; a cancel of that size on server a, then an admin adding to it
// through a, each sell it again on b at once, though b's mark would last an
// hour.
func TestSizeSoldOutMarkLiftsOnEveryServer(t *testing.T) {
	t.Parallel()
	clk := &liveClock{}
	a := start(t, clk, func(c *config.Config) { c.SoldOutTTL = time.Hour })
	b := a.twin(t, clk)
	created := a.call(t, "POST", "/api/v1/admin/items", adminToken, dropBody(time.Now().Add(-time.Minute), size("S", 1), size("M", 5)))
	check(t, created, want{201, "", ""})
	id, ids := int64(created.body["id"].(float64)), variantIDs(t, created)
	path := "/api/v1/items/" + itoa(id) + "/purchase"
	small := `{"variant_id":` + itoa(ids["S"]) + `,"quantity":1}`

	bought := a.call(t, "POST", path, mintToken(t, "ann"), small)
	check(t, bought, want{202, "", ""})
	for range 2 { // Redis answers, then b's mark does
		r := b.call(t, "POST", path, mintToken(t, "bob"), small)
		check(t, r, want{410, "sold_out", ""})
		if availableVariants(r) != itoa(ids["M"]) {
			t.Fatalf("sold-out S offers %q, want M (%d)", availableVariants(r), ids["M"])
		}
	}
	if metric(t, b, "gated_sold_out") != 1 {
		t.Fatal("server b did not answer the second try from its mark")
	}
	check(t, b.call(t, "POST", path, mintToken(t, "bob"), `{"variant_id":`+itoa(ids["M"])+`,"quantity":1}`), want{202, "", ""})

	a.settle(t, id)
	check(t, a.call(t, "POST", "/api/v1/orders/"+bought.str("order_id")+"/cancel", mintToken(t, "ann"), nil), want{200, "", ""})
	sellsAgainOn(t, b, path, small, "cat", "the cancel on a")
	check(t, b.call(t, "POST", path, mintToken(t, "dan"), small), want{410, "sold_out", ""})

	r := a.call(t, "PATCH", "/api/v1/admin/items/"+itoa(id)+"/variants/"+itoa(ids["S"]), adminToken, map[string]any{"stock_total": 2})
	check(t, r, want{200, "", ""})
	sellsAgainOn(t, b, path, small, "eve", "the admin added to S on a")
	if st := a.settle(t, id); st.body["sold"].(float64) != 3 || st.body["consistent"] != true {
		t.Fatalf("stats: %s", st.raw)
	}
}
