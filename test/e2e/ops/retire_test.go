package ops

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// footprint is what a Redis holds: its keys and the memory of its data.
// Left out, as they belong to no sale: the fleet's job bookkeeping keys
// (period claims and locks, which expire within two periods and come and go
// with the sweeper's ticks), connection buffers (mem_clients_normal: the
// pools grow with concurrency, not with sales) and the script cache
// (used_memory_scripts: each server loads its scripts once).
type footprint struct{ keys, memory, used int64 }

func measure(tb testing.TB, rdb *redis.Client) footprint {
	tb.Helper()
	ctx := context.Background()
	info, err := rdb.Info(ctx, "memory").Result()
	if err != nil {
		tb.Fatal(err)
	}
	field := func(name string) int64 {
		for _, line := range strings.Split(info, "\r\n") {
			if v, ok := strings.CutPrefix(line, name+":"); ok {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					tb.Fatalf("INFO memory %s: %q", name, v)
				}
				return n
			}
		}
		tb.Fatalf("INFO memory has no %s", name)
		return 0
	}
	// Keys that would stay: KEYS, not DBSIZE (which counts expired keys not
	// reaped yet), and only those without a TTL. Keys that expire by
	// themselves (the job claims and locks, a purchase-limit bucket a few
	// seconds old) are not kept; a leak is a key that never goes. A private
	// Redis of a few thousand keys at most: KEYS and a PTTL each are cheap.
	n := int64(len(kept(tb, rdb)))
	used := field("used_memory")
	return footprint{keys: n, used: used, memory: used - field("mem_clients_normal") - field("used_memory_scripts")}
}

// kept returns the keys that have no expiry.
func kept(tb testing.TB, rdb *redis.Client) []string {
	tb.Helper()
	ctx := context.Background()
	keys := rdb.Keys(ctx, "*").Val()
	ttls := make([]*redis.DurationCmd, len(keys))
	_, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range keys {
			ttls[i] = p.PTTL(ctx, k)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for i, k := range keys {
		if ttls[i].Val() == -1 { // exists, no expiry (-2: gone meanwhile)
			out = append(out, k)
		}
	}
	return out
}

// shopperView is everything shoppers can see of the sales and their orders.
type shopperView struct {
	items  map[int64]string  // sale page JSON, retired_at left out
	orders map[string]string // each shopper's order list, and each order
	buy    string            // a latecomer's purchase answer: status and code
}

// look reads what shoppers see of the sales ids, as users.
func look(tb testing.TB, s *e2etest.Server, ids []int64, users []string) shopperView {
	tb.Helper()
	v := shopperView{items: map[int64]string{}, orders: map[string]string{}}
	for _, id := range ids {
		r := s.Call(tb, "GET", "/api/v1/items/"+e2etest.Itoa(id), "", nil)
		if r.Status != 200 {
			tb.Fatalf("sale page %d: %d %s", id, r.Status, r.Raw)
		}
		delete(r.Body, "retired_at")
		v.items[id] = string(e2etest.MustJSON(r.Body))
	}
	for _, u := range users {
		tok := e2etest.MintToken(tb, u)
		r := s.Call(tb, "GET", "/api/v1/orders", tok, nil)
		if r.Status != 200 {
			tb.Fatalf("orders of %s: %d %s", u, r.Status, r.Raw)
		}
		v.orders[u] = r.Raw
		for _, o := range r.Body["orders"].([]any) {
			id := o.(map[string]any)["order_id"].(string)
			g := s.Call(tb, "GET", "/api/v1/orders/"+id, tok, nil)
			v.orders[id] = strconv.Itoa(g.Status) + " " + g.Raw
		}
	}
	late := s.Call(tb, "POST", "/api/v1/items/"+e2etest.Itoa(ids[0])+"/purchase", e2etest.MintToken(tb, "latecomer"), nil)
	v.buy = strconv.Itoa(late.Status) + " " + late.ErrCode()
	return v
}

// TestRetireTwoHundredSales runs 200 small sales to their end on a Redis of
// the test's own (shoppers buy, some cancel, some pay, the payment timeout
// cancels the rest), retires them all through the API, and checks that
// Redis is back where it started, keys and memory, while nothing shoppers
// see has changed: every sale page (but for retired_at, which says the sale
// was retired), order list and order, and the answer to a purchase after
// the end; and that order lookups no longer read any of them.
//
// Within 5% of the start: Redis holds several times its starting data at
// the peak, so a leak of a key or a hash per sale shows many times over;
// the margin is for what Redis itself keeps of a first round of work (see
// below), not for anything of the sales.
func TestRetireTwoHundredSales(t *testing.T) {
	t.Parallel()
	// A redis-server of the test's own, so its memory and key count measure
	// this test alone.
	addr := testenv.PrivateRedis(t)
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { rdb.Close() })
	target := redisconn.Target{Addr: addr}
	c := &cycle{clk: e2etest.NewClock(e2etest.T0), users: []string{"shopper-0", "shopper-1", "shopper-2"}}
	c.s = e2etest.Start(t, c.clk, e2etest.On(target), func(cfg *config.Config) { cfg.PaymentTimeout, cfg.SweepEvery = 10*time.Minute, 50*time.Millisecond })
	prefix := c.s.Cfg.RedisPrefix
	// A fresh redis-server keeps some of what it allocated for its first
	// round of streams, consumer groups, scripts and pipelined clients once
	// their keys are gone (by hand: about 250 KB after the first few hundred
	// streams, none after later rounds). So the start is measured after a
	// first round of as many sales has run the same course and been retired
	// (a round of 20 left 2 to 5% of such memory to be counted as a leak).
	c.retire(t, c.run(t, 200))
	begin := measure(t, rdb)

	ids := c.run(t, 200)
	peak := measure(t, rdb)
	before := look(t, c.s, ids, c.users)
	c.retire(t, ids)
	// Redis gives memory back in its cron (dict shrinking, lazy frees), a
	// little after the keys go: on a loaded machine, seconds after.
	var end footprint
	testenv.Eventually(10*time.Second, func() bool {
		end = measure(t, rdb)
		return end.memory <= begin.memory+begin.memory/20
	})
	after := look(t, c.s, ids, c.users)

	if n := rdb.SCard(context.Background(), prefix+":items").Val(); n != 0 {
		t.Errorf("the registry holds %d sales after all were retired: order lookups would still read them", n)
	}
	t.Logf("redis keys %d -> %d -> %d, data memory %d -> %d -> %d bytes (used_memory %d -> %d -> %d)",
		begin.keys, peak.keys, end.keys, begin.memory, peak.memory, end.memory, begin.used, peak.used, end.used)
	if end.keys > begin.keys+begin.keys/20 {
		t.Errorf("%d keys after retiring, %d at the start (peak %d): %v", end.keys, begin.keys, peak.keys, kept(t, rdb))
	}
	if end.memory > begin.memory+begin.memory/20 {
		t.Errorf("%d bytes of data after retiring, %d at the start (peak %d): more than 5%% left", end.memory, begin.memory, peak.memory)
	}
	diff(t, "sale page", before.items, after.items)
	diff(t, "orders", before.orders, after.orders)
	if before.buy != after.buy || before.buy != "403 ended" {
		t.Errorf("a purchase after the end: %q before retiring, %q after; want 403 ended both times", before.buy, after.buy)
	}
	st := c.s.Stats(t, ids[1])
	if st.Status != 200 || st.Body["stock_redis"] != nil || st.Body["consistent"] != true || st.Body["sold"].(float64) != 1 {
		t.Errorf("stats of a retired sale: %d %s; want MySQL's figures, no Redis side, consistent", st.Status, st.Raw)
	}
}

// cycle runs rounds of small sales through a whole life on one server.
type cycle struct {
	s     *e2etest.Server
	clk   *e2etest.Clock
	users []string
}

// run creates n sales of 3 units opening now, has every user buy one unit
// of each, the first cancel in every fourth sale and the second pay, then
// moves the clock past their end and the payment timeout, which cancels
// the third user's orders, and waits until MySQL has settled everything.
func (c *cycle) run(t *testing.T, n int) []int64 {
	t.Helper()
	s, now := c.s, c.clk.Now()
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = s.Sale(t, 3, 1, now, now.Add(time.Hour))
	}
	orderOf := map[string]string{} // user/sale -> order
	for _, id := range ids {
		for _, u := range c.users {
			r := s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", e2etest.MintToken(t, u), nil)
			if r.Status != 202 {
				t.Fatalf("%s buys from %d: %d %s", u, id, r.Status, r.Raw)
			}
			orderOf[u+"/"+e2etest.Itoa(id)] = r.Str("order_id")
		}
	}
	want := int64(n * len(c.users))
	if !testenv.Eventually(30*time.Second, func() bool { return c.count(t, ids, "1=1") == want }) {
		t.Fatalf("%d of %d orders persisted after 30s", c.count(t, ids, "1=1"), want)
	}
	for i, id := range ids {
		if i%4 == 0 {
			u := c.users[0]
			if r := s.Call(t, "POST", "/api/v1/orders/"+orderOf[u+"/"+e2etest.Itoa(id)]+"/cancel", e2etest.MintToken(t, u), nil); r.Status != 200 {
				t.Fatalf("cancel: %d %s", r.Status, r.Raw)
			}
		}
		u := c.users[1]
		if r := s.Call(t, "POST", "/api/v1/orders/"+orderOf[u+"/"+e2etest.Itoa(id)]+"/pay", e2etest.MintToken(t, u), nil); r.Status != 200 {
			t.Fatalf("pay: %d %s", r.Status, r.Raw)
		}
	}
	refused := s.Call(t, "POST", "/api/v1/admin/items/"+e2etest.Itoa(ids[0])+"/retire", e2etest.AdminToken, nil)
	if refused.Status != 409 || refused.ErrCode() != "sale_not_retirable" {
		t.Fatalf("retire before the end: %d %s, want 409 sale_not_retirable", refused.Status, refused.Raw)
	}
	c.clk.Set(now.Add(2 * time.Hour))
	if !testenv.Eventually(30*time.Second, func() bool {
		return c.count(t, ids, "status = 'confirmed'") == 0 && c.count(t, ids, "redis_released = 0") == 0
	}) {
		t.Fatalf("%d orders still awaiting payment after the timeout", c.count(t, ids, "status = 'confirmed'"))
	}
	return ids
}

// count counts the orders of the sales ids that match where.
func (c *cycle) count(t *testing.T, ids []int64, where string) int64 {
	t.Helper()
	var n int64
	if err := c.s.Db.Gorm.Raw("SELECT COUNT(*) FROM orders WHERE item_id IN ? AND "+where, ids).Scan(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// retire retires the sales through the admin API.
func (c *cycle) retire(t *testing.T, ids []int64) {
	t.Helper()
	for _, id := range ids {
		r := c.s.Call(t, "POST", "/api/v1/admin/items/"+e2etest.Itoa(id)+"/retire", e2etest.AdminToken, nil)
		if r.Status != 200 || r.Str("retired_at") == "" {
			t.Fatalf("retire %d: %d %s", id, r.Status, r.Raw)
		}
	}
}

func diff[K comparable](tb testing.TB, what string, before, after map[K]string) {
	tb.Helper()
	if len(before) != len(after) {
		tb.Errorf("%s: %d before retiring, %d after", what, len(before), len(after))
	}
	shown := 0
	for k, b := range before {
		if a := after[k]; a != b && shown < 3 {
			shown++
			tb.Errorf("%s %v changed with the retire:\nbefore %s\nafter  %s", what, k, b, a)
		}
	}
}
