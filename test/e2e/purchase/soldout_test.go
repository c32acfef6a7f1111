package purchase

import (
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// A sale seen sold out is answered without Redis, and the moment stock
// comes back (a cancel, an admin adding stock) it sells again: the mark
// lives long in this test, so only the return can have cleared it.
func TestSoldOutMarkLiftsWhenStockReturns(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, &e2etest.LiveClock{}, func(c *config.Config) { c.SoldOutTTL = time.Hour })
	id := s.Sale(t, 1, 1, time.Now().Add(-time.Minute), time.Now().Add(time.Hour))
	path := "/api/v1/items/" + e2etest.Itoa(id) + "/purchase"
	buy := func(user string, hdr ...string) e2etest.Reply {
		return s.Call(t, "POST", path, e2etest.MintToken(t, user), nil, hdr...)
	}

	first := buy("ann", "Idempotency-Key", "ann-1")
	e2etest.Check(t, first, e2etest.Want{Status: 202})
	e2etest.Check(t, buy("bob"), e2etest.Want{Status: 410, Code: "sold_out"}) // Redis says so; the server marks the sale
	e2etest.Check(t, buy("cat"), e2etest.Want{Status: 410, Code: "sold_out"})
	e2etest.Check(t, buy("bob"), e2etest.Want{Status: 410, Code: "sold_out"})
	// ann's answer already said nothing was left: every later one is the mark's.
	if n := e2etest.Metric(t, s, "marked_sold_out"); n != 3 {
		t.Fatalf("%d answers from the mark, want 3", n)
	}
	// The buyer's retry must get the order back, not "sold out".
	if r := buy("ann", "Idempotency-Key", "ann-1"); r.Status != 202 || r.Str("order_id") != first.Str("order_id") {
		t.Fatalf("retry of the last unit's purchase: %d %s", r.Status, r.Raw)
	}

	s.Settle(t, id)
	e2etest.Check(t, s.Call(t, "POST", "/api/v1/orders/"+first.Str("order_id")+"/cancel", e2etest.MintToken(t, "ann"), nil), e2etest.Want{Status: 200})
	e2etest.Check(t, buy("dan"), e2etest.Want{Status: 202}) // at once: no wait for the mark to lapse
	e2etest.Check(t, buy("eve"), e2etest.Want{Status: 410, Code: "sold_out"})

	e2etest.Check(t, s.Call(t, "PATCH", "/api/v1/admin/items/"+e2etest.Itoa(id), e2etest.AdminToken, `{"stock_total":2}`), e2etest.Want{Status: 200})
	e2etest.Check(t, buy("fay"), e2etest.Want{Status: 202})
	e2etest.Check(t, buy("gus"), e2etest.Want{Status: 410, Code: "sold_out"})
	if st := s.Settle(t, id); st.Body["sold"].(float64) != 2 || st.Body["consistent"] != true {
		t.Fatalf("stats: %s", st.Raw)
	}
}

// Two servers share Redis: stock returned through one lifts the other's
// mark within moments, told over pub/sub.
func TestSoldOutMarkLiftsOnEveryServer(t *testing.T) {
	t.Parallel()
	for _, rt := range testenv.RedisTargets(t) {
		t.Run(rt.Name, func(t *testing.T) { t.Parallel(); soldOutMarkLiftsOnEveryServer(t, rt.Redis) })
	}
}

// soldOutMarkLiftsOnEveryServer: server b marks the sale sold out; a cancel
// on server a, then an admin adding stock through a, each sell again on b at
// once, though b's mark would last an hour: the return reaches b over
// pub/sub (on a cluster too).
func soldOutMarkLiftsOnEveryServer(t *testing.T, red redisconn.Target) {
	clk := &e2etest.LiveClock{}
	a := e2etest.Start(t, clk, e2etest.On(red), func(c *config.Config) { c.SoldOutTTL = time.Hour })
	b := a.Twin(t, clk)
	id := a.Sale(t, 1, 1, time.Now().Add(-time.Minute), time.Now().Add(time.Hour))
	path := "/api/v1/items/" + e2etest.Itoa(id) + "/purchase"

	bought := a.Call(t, "POST", path, e2etest.MintToken(t, "ann"), nil)
	e2etest.Check(t, bought, e2etest.Want{Status: 202})
	e2etest.Check(t, b.Call(t, "POST", path, e2etest.MintToken(t, "bob"), nil), e2etest.Want{Status: 410, Code: "sold_out"}) // b asks Redis
	e2etest.Check(t, b.Call(t, "POST", path, e2etest.MintToken(t, "bob"), nil), e2etest.Want{Status: 410, Code: "sold_out"}) // b's mark answers
	if e2etest.Metric(t, b, "marked_sold_out") != 1 {
		t.Fatal("server b did not mark the sale sold out")
	}

	a.Settle(t, id)
	e2etest.Check(t, a.Call(t, "POST", "/api/v1/orders/"+bought.Str("order_id")+"/cancel", e2etest.MintToken(t, "ann"), nil), e2etest.Want{Status: 200})
	e2etest.SellsAgainOn(t, b, path, nil, "cat", "the cancel on a")
	e2etest.Check(t, b.Call(t, "POST", path, e2etest.MintToken(t, "dan"), nil), e2etest.Want{Status: 410, Code: "sold_out"}) // marked again

	r := a.Call(t, "PATCH", "/api/v1/admin/items/"+e2etest.Itoa(id), e2etest.AdminToken, map[string]any{"stock_total": 2})
	e2etest.Check(t, r, e2etest.Want{Status: 200})
	e2etest.SellsAgainOn(t, b, path, nil, "eve", "the admin added stock on a")
	if st := a.Settle(t, id); st.Body["sold"].(float64) != 2 || st.Body["consistent"] != true {
		t.Fatalf("stats: %s", st.Raw)
	}
}
