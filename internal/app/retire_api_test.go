package app_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/testenv"
)

// TestRetireAPI: retiring is refused with the reason while a sale is open
// or an order awaits payment; once retired, the answer repeats, and warms
// and changes of the sale are refused with sale_retired.
func TestRetireAPI(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk)
	id := s.sale(t, 3, 1, t0, t0.Add(time.Hour))
	retire := func() reply { return s.call(t, "POST", "/api/v1/admin/items/"+itoa(id)+"/retire", adminToken, nil) }
	refused := func(why string) {
		t.Helper()
		r := retire()
		if r.status != 409 || r.errCode() != "sale_not_retirable" || !strings.Contains(r.raw, why) {
			t.Fatalf("retire: %d %s; want 409 sale_not_retirable saying %q", r.status, r.raw, why)
		}
	}
	refused("not ended")
	tok := mintToken(t, "ann")
	buy := s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", tok, nil)
	if buy.status != 202 {
		t.Fatalf("purchase: %d %s", buy.status, buy.raw)
	}
	s.settle(t, id)
	clk.Add(2 * time.Hour)
	// settle sees the order in MySQL; the persister acknowledges it in
	// Redis just after, and until then the sale is still persisting.
	testenv.WaitFor(t, 10*time.Second, func() bool { return !strings.Contains(retire().raw, "still being persisted") },
		"the persister acknowledges the order")
	refused("awaiting payment") // the harness's payment timeout is a century
	if r := s.call(t, "POST", "/api/v1/orders/"+buy.str("order_id")+"/pay", tok, nil); r.status != 200 {
		t.Fatalf("pay: %d %s", r.status, r.raw)
	}
	first := retire()
	if first.status != 200 || first.str("retired_at") == "" || first.str("status") != "ended" {
		t.Fatalf("retire: %d %s; want the ended sale with retired_at", first.status, first.raw)
	}
	clk.Add(time.Minute)
	if again := retire(); again.status != 200 || again.raw != first.raw {
		t.Fatalf("retire again: %d %s; want the same answer %s", again.status, again.raw, first.raw)
	}
	for _, r := range []struct {
		method, path string
		body         any
	}{
		{"POST", "/warm", nil},
		{"PATCH", "", map[string]any{"name": "Renamed"}},
		{"PATCH", "", map[string]any{"ends_at": t0.Add(5 * time.Hour).Format(time.RFC3339)}},
		{"POST", "/variants", map[string]any{"label": "XL", "stock_total": 1}},
	} {
		got := s.call(t, r.method, "/api/v1/admin/items/"+itoa(id)+r.path, adminToken, r.body)
		if got.status != 409 || got.errCode() != "sale_retired" {
			t.Errorf("%s %s of a retired sale: %d %s; want 409 sale_retired", r.method, r.path, got.status, got.raw)
		}
	}
	if page := s.call(t, "GET", "/api/v1/items/"+itoa(id), "", nil); page.str("retired_at") != first.str("retired_at") ||
		page.body["stock_left"].(float64) != 2 {
		t.Errorf("sale page of the retired sale: %s", page.raw)
	}
	// Retired once, recorded once; the refused tries recorded nothing.
	log := s.call(t, "GET", "/api/v1/admin/audit?action=retire&item_id="+itoa(id), adminToken, nil)
	if entries, _ := log.body["entries"].([]any); len(entries) != 1 {
		t.Errorf("audit entries of the retirement: %s", log.raw)
	}
}

// TestRetirerRetiresEndedSales: the automatic retirer (SECKILL_RETIRE_EVERY)
// retires the ended sales that are done, on its own, and leaves an open one
// and one with an order awaiting payment alone.
func TestRetirerRetiresEndedSales(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk, func(c *config.Config) { c.RetireEvery = 100 * time.Millisecond })
	done := []int64{s.sale(t, 3, 1, t0, t0.Add(time.Hour)), s.sale(t, 3, 1, t0, t0.Add(time.Hour))}
	unpaid := s.sale(t, 3, 1, t0, t0.Add(time.Hour))
	open := s.sale(t, 3, 1, t0, t0.Add(5*time.Hour))
	if r := s.call(t, "POST", "/api/v1/items/"+itoa(unpaid)+"/purchase", mintToken(t, "bob"), nil); r.status != 202 {
		t.Fatalf("purchase: %d %s", r.status, r.raw)
	}
	s.settle(t, unpaid)
	clk.Add(2 * time.Hour)
	retired := func(id int64) bool {
		return s.call(t, "GET", "/api/v1/items/"+itoa(id), "", nil).str("retired_at") != ""
	}
	if !testenv.Eventually(10*time.Second, func() bool { return retired(done[0]) && retired(done[1]) }) {
		t.Fatal("the retirer did not retire the ended sales within 10s")
	}
	for _, id := range []int64{unpaid, open} {
		if retired(id) {
			t.Errorf("the retirer retired sale %d, which is not done", id)
		}
	}
}

// TestRetireOnCluster retires a sale on a Redis Cluster through the whole
// server: every key of the sale, wherever its slot lives, is gone.
func TestRetireOnCluster(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	target := testenv.Cluster(t)
	s := start(t, clk, on(target))
	id := s.sale(t, 3, 1, t0, t0.Add(time.Hour))
	tok := mintToken(t, "ann")
	buy := s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", tok, nil)
	if buy.status != 202 {
		t.Fatalf("purchase: %d %s", buy.status, buy.raw)
	}
	s.settle(t, id)
	if r := s.call(t, "POST", "/api/v1/orders/"+buy.str("order_id")+"/pay", tok, nil); r.status != 200 {
		t.Fatalf("pay: %d %s", r.status, r.raw)
	}
	rdb, err := redisconn.Open(context.Background(), target, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	pattern := keyspace.New(s.cfg.RedisPrefix).Item(id).Pattern()
	if n := testenv.CountKeys(t, rdb, pattern); n < 5 {
		t.Fatalf("%d keys of the sale on the cluster before retiring; the sale is not warm", n)
	}
	clk.Add(2 * time.Hour)
	if r := s.call(t, "POST", "/api/v1/admin/items/"+itoa(id)+"/retire", adminToken, nil); r.status != 200 {
		t.Fatalf("retire: %d %s", r.status, r.raw)
	}
	if n := testenv.CountKeys(t, rdb, pattern); n != 0 {
		t.Fatalf("%d keys of the retired sale left on the cluster", n)
	}
}

// TestRetireClosesRedisForALaggingServer: a server whose clock is more than
// the retirement's grace behind still sells an ended sale by its clock.
// Retiring closes the sale in Redis before it looks at the queue: the
// order that server took before is kept (the retirement waits for it to
// reach MySQL), and from the close on it cannot take one (no 202).
func TestRetireClosesRedisForALaggingServer(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk, noPersisters)
	id := s.sale(t, 3, 1, t0, t0.Add(time.Hour))
	lagging := s.twin(t, newClock(t0.Add(time.Hour-time.Second)))
	clk.Add(time.Hour + 2*time.Minute) // two minutes and a second ahead of it
	retire := func() reply { return s.call(t, "POST", "/api/v1/admin/items/"+itoa(id)+"/retire", adminToken, nil) }
	buy := func(user string) reply {
		return lagging.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", mintToken(t, user), nil)
	}

	ann := buy("ann")
	if ann.status != 202 {
		t.Fatalf("ann buys on the lagging server before the retirement: %d %s", ann.status, ann.raw)
	}
	if r := retire(); r.status != 409 || !strings.Contains(r.raw, "still being persisted") {
		t.Fatalf("retire with ann's order only in Redis: %d %s; want 409 saying it is still being persisted", r.status, r.raw)
	}
	if r := buy("bob"); r.status == 202 || r.errCode() != "ended" {
		t.Fatalf("bob buys on the lagging server after the close: %d %s; want 403 ended", r.status, r.raw)
	}

	s.withPersisters(t, clk)
	s.settle(t, id)
	if r := s.call(t, "POST", "/api/v1/orders/"+ann.str("order_id")+"/pay", mintToken(t, "ann"), nil); r.status != 200 {
		t.Fatalf("pay: %d %s", r.status, r.raw)
	}
	var r reply // settle sees the order in MySQL; the persister acknowledges it just after
	testenv.WaitFor(t, 10*time.Second, func() bool { r = retire(); return !strings.Contains(r.raw, "still being persisted") },
		"the persister acknowledges ann's order")
	if r.status != 200 || r.str("retired_at") == "" {
		t.Fatalf("retire once ann's order is in MySQL: %d %s", r.status, r.raw)
	}
	var n int64
	if err := s.db.Gorm.Raw("SELECT COUNT(*) FROM orders WHERE item_id = ?", id).Scan(&n).Error; err != nil || n != 1 {
		t.Fatalf("orders of the retired sale in MySQL: %d, %v; want ann's alone", n, err)
	}
}
