package app_test

import (
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/testenv"
)

// A sale seen sold out is answered without Redis, and the moment stock
// comes back (a cancel, an admin adding stock) it sells again: the mark
// lives long in this test, so only the return can have cleared it.
func TestSoldOutMarkLiftsWhenStockReturns(t *testing.T) {
	t.Parallel()
	s := start(t, &liveClock{}, func(c *config.Config) { c.SoldOutTTL = time.Hour })
	id := s.sale(t, 1, 1, time.Now().Add(-time.Minute), time.Now().Add(time.Hour))
	path := "/api/v1/items/" + itoa(id) + "/purchase"
	buy := func(user string, hdr ...string) reply {
		return s.call(t, "POST", path, mintToken(t, user), nil, hdr...)
	}

	first := buy("ann", "Idempotency-Key", "ann-1")
	check(t, first, want{202, "", ""})
	check(t, buy("bob"), want{410, "sold_out", ""}) // Redis says so; the server marks the sale
	check(t, buy("cat"), want{410, "sold_out", ""})
	check(t, buy("bob"), want{410, "sold_out", ""})
	// ann's answer already said nothing was left: every later one is the mark's.
	if n := metric(t, s, "marked_sold_out"); n != 3 {
		t.Fatalf("%d answers from the mark, want 3", n)
	}
	// The buyer's retry must get the order back, not "sold out".
	if r := buy("ann", "Idempotency-Key", "ann-1"); r.status != 202 || r.str("order_id") != first.str("order_id") {
		t.Fatalf("retry of the last unit's purchase: %d %s", r.status, r.raw)
	}

	s.settle(t, id)
	check(t, s.call(t, "POST", "/api/v1/orders/"+first.str("order_id")+"/cancel", mintToken(t, "ann"), nil), want{200, "", ""})
	check(t, buy("dan"), want{202, "", ""}) // at once: no wait for the mark to lapse
	check(t, buy("eve"), want{410, "sold_out", ""})

	check(t, s.call(t, "PATCH", "/api/v1/admin/items/"+itoa(id), adminToken, `{"stock_total":2}`), want{200, "", ""})
	check(t, buy("fay"), want{202, "", ""})
	check(t, buy("gus"), want{410, "sold_out", ""})
	if st := s.settle(t, id); st.body["sold"].(float64) != 2 || st.body["consistent"] != true {
		t.Fatalf("stats: %s", st.raw)
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
	clk := &liveClock{}
	a := start(t, clk, on(red), func(c *config.Config) { c.SoldOutTTL = time.Hour })
	b := a.twin(t, clk)
	id := a.sale(t, 1, 1, time.Now().Add(-time.Minute), time.Now().Add(time.Hour))
	path := "/api/v1/items/" + itoa(id) + "/purchase"

	bought := a.call(t, "POST", path, mintToken(t, "ann"), nil)
	check(t, bought, want{202, "", ""})
	check(t, b.call(t, "POST", path, mintToken(t, "bob"), nil), want{410, "sold_out", ""}) // b asks Redis
	check(t, b.call(t, "POST", path, mintToken(t, "bob"), nil), want{410, "sold_out", ""}) // b's mark answers
	if metric(t, b, "marked_sold_out") != 1 {
		t.Fatal("server b did not mark the sale sold out")
	}

	a.settle(t, id)
	check(t, a.call(t, "POST", "/api/v1/orders/"+bought.str("order_id")+"/cancel", mintToken(t, "ann"), nil), want{200, "", ""})
	sellsAgainOn(t, b, path, nil, "cat", "the cancel on a")
	check(t, b.call(t, "POST", path, mintToken(t, "dan"), nil), want{410, "sold_out", ""}) // marked again

	r := a.call(t, "PATCH", "/api/v1/admin/items/"+itoa(id), adminToken, map[string]any{"stock_total": 2})
	check(t, r, want{200, "", ""})
	sellsAgainOn(t, b, path, nil, "eve", "the admin added stock on a")
	if st := a.settle(t, id); st.body["sold"].(float64) != 2 || st.body["consistent"] != true {
		t.Fatalf("stats: %s", st.raw)
	}
}

// sellsAgainOn buys (body, nil for the default) as user on s until it works, failing on anything but
// sold_out meanwhile or after 2 s.
func sellsAgainOn(t *testing.T, s *server, path string, body any, user, after string) {
	t.Helper()
	since := time.Now()
	var r reply
	if !testenv.Eventually(2*time.Second, func() bool {
		r = s.call(t, "POST", path, mintToken(t, user), body)
		if r.status != 202 && r.status != 410 {
			t.Fatalf("server b after %s: %d %s", after, r.status, r.raw)
		}
		return r.status == 202
	}) {
		t.Fatalf("server b after %s, for 2s: %d %s", after, r.status, r.raw)
	}
	t.Logf("server b sold the returned unit %v after %s", time.Since(since), after)
}
