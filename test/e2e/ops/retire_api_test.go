package ops

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestRetireAPI: retiring is refused with the reason while a sale is open
// or an order awaits payment; once retired, the answer repeats, and warms
// and changes of the sale are refused with sale_retired.
func TestRetireAPI(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk)
	id := s.Sale(t, 3, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	retire := func() e2etest.Reply {
		return s.Call(t, "POST", "/api/v1/admin/items/"+e2etest.Itoa(id)+"/retire", e2etest.AdminToken, nil)
	}
	refused := func(why string) {
		t.Helper()
		r := retire()
		if r.Status != 409 || r.ErrCode() != "sale_not_retirable" || !strings.Contains(r.Raw, why) {
			t.Fatalf("retire: %d %s; want 409 sale_not_retirable saying %q", r.Status, r.Raw, why)
		}
	}
	refused("not ended")
	tok := e2etest.MintToken(t, "ann")
	buy := s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", tok, nil)
	if buy.Status != 202 {
		t.Fatalf("purchase: %d %s", buy.Status, buy.Raw)
	}
	s.Settle(t, id)
	clk.Add(2 * time.Hour)
	// settle sees the order in MySQL; the persister acknowledges it in
	// Redis just after, and until then the sale is still persisting.
	testenv.WaitFor(t, 10*time.Second, func() bool { return !strings.Contains(retire().Raw, "still being persisted") },
		"the persister acknowledges the order")
	refused("awaiting payment") // the harness's payment timeout is a century
	if r := s.Call(t, "POST", "/api/v1/orders/"+buy.Str("order_id")+"/pay", tok, nil); r.Status != 200 {
		t.Fatalf("pay: %d %s", r.Status, r.Raw)
	}
	first := retire()
	if first.Status != 200 || first.Str("retired_at") == "" || first.Str("status") != "ended" {
		t.Fatalf("retire: %d %s; want the ended sale with retired_at", first.Status, first.Raw)
	}
	clk.Add(time.Minute)
	if again := retire(); again.Status != 200 || again.Raw != first.Raw {
		t.Fatalf("retire again: %d %s; want the same answer %s", again.Status, again.Raw, first.Raw)
	}
	for _, r := range []struct {
		method, path string
		body         any
	}{
		{"POST", "/warm", nil},
		{"PATCH", "", map[string]any{"name": "Renamed"}},
		{"PATCH", "", map[string]any{"ends_at": e2etest.T0.Add(5 * time.Hour).Format(time.RFC3339)}},
		{"POST", "/variants", map[string]any{"label": "XL", "stock_total": 1}},
	} {
		got := s.Call(t, r.method, "/api/v1/admin/items/"+e2etest.Itoa(id)+r.path, e2etest.AdminToken, r.body)
		if got.Status != 409 || got.ErrCode() != "sale_retired" {
			t.Errorf("%s %s of a retired sale: %d %s; want 409 sale_retired", r.method, r.path, got.Status, got.Raw)
		}
	}
	if page := s.Call(t, "GET", "/api/v1/items/"+e2etest.Itoa(id), "", nil); page.Str("retired_at") != first.Str("retired_at") ||
		page.Body["stock_left"].(float64) != 2 {
		t.Errorf("sale page of the retired sale: %s", page.Raw)
	}
	// Retired once, recorded once; the refused tries recorded nothing.
	log := s.Call(t, "GET", "/api/v1/admin/audit?action=retire&item_id="+e2etest.Itoa(id), e2etest.AdminToken, nil)
	if entries, _ := log.Body["entries"].([]any); len(entries) != 1 {
		t.Errorf("audit entries of the retirement: %s", log.Raw)
	}
}

// TestRetirerRetiresEndedSales: the automatic retirer (SECKILL_RETIRE_EVERY)
// retires the ended sales that are done, on its own, and leaves an open one
// and one with an order awaiting payment alone.
func TestRetirerRetiresEndedSales(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk, func(c *config.Config) { c.RetireEvery = 100 * time.Millisecond })
	done := []int64{s.Sale(t, 3, 1, e2etest.T0, e2etest.T0.Add(time.Hour)), s.Sale(t, 3, 1, e2etest.T0, e2etest.T0.Add(time.Hour))}
	unpaid := s.Sale(t, 3, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	open := s.Sale(t, 3, 1, e2etest.T0, e2etest.T0.Add(5*time.Hour))
	if r := s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(unpaid)+"/purchase", e2etest.MintToken(t, "bob"), nil); r.Status != 202 {
		t.Fatalf("purchase: %d %s", r.Status, r.Raw)
	}
	s.Settle(t, unpaid)
	clk.Add(2 * time.Hour)
	retired := func(id int64) bool {
		return s.Call(t, "GET", "/api/v1/items/"+e2etest.Itoa(id), "", nil).Str("retired_at") != ""
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
	clk := e2etest.NewClock(e2etest.T0)
	target := testenv.Cluster(t)
	s := e2etest.Start(t, clk, e2etest.On(target))
	id := s.Sale(t, 3, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	tok := e2etest.MintToken(t, "ann")
	buy := s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", tok, nil)
	if buy.Status != 202 {
		t.Fatalf("purchase: %d %s", buy.Status, buy.Raw)
	}
	s.Settle(t, id)
	if r := s.Call(t, "POST", "/api/v1/orders/"+buy.Str("order_id")+"/pay", tok, nil); r.Status != 200 {
		t.Fatalf("pay: %d %s", r.Status, r.Raw)
	}
	rdb, err := redisconn.Open(context.Background(), target, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	pattern := keyspace.New(s.Cfg.RedisPrefix).Item(id).Pattern()
	if n := testenv.CountKeys(t, rdb, pattern); n < 5 {
		t.Fatalf("%d keys of the sale on the cluster before retiring; the sale is not warm", n)
	}
	clk.Add(2 * time.Hour)
	if r := s.Call(t, "POST", "/api/v1/admin/items/"+e2etest.Itoa(id)+"/retire", e2etest.AdminToken, nil); r.Status != 200 {
		t.Fatalf("retire: %d %s", r.Status, r.Raw)
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
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk, e2etest.NoPersisters)
	id := s.Sale(t, 3, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	lagging := s.Twin(t, e2etest.NewClock(e2etest.T0.Add(time.Hour-time.Second)))
	clk.Add(time.Hour + 2*time.Minute) // two minutes and a second ahead of it
	retire := func() e2etest.Reply {
		return s.Call(t, "POST", "/api/v1/admin/items/"+e2etest.Itoa(id)+"/retire", e2etest.AdminToken, nil)
	}
	buy := func(user string) e2etest.Reply {
		return lagging.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", e2etest.MintToken(t, user), nil)
	}

	ann := buy("ann")
	if ann.Status != 202 {
		t.Fatalf("ann buys on the lagging server before the retirement: %d %s", ann.Status, ann.Raw)
	}
	if r := retire(); r.Status != 409 || !strings.Contains(r.Raw, "still being persisted") {
		t.Fatalf("retire with ann's order only in Redis: %d %s; want 409 saying it is still being persisted", r.Status, r.Raw)
	}
	if r := buy("bob"); r.Status == 202 || r.ErrCode() != "ended" {
		t.Fatalf("bob buys on the lagging server after the close: %d %s; want 403 ended", r.Status, r.Raw)
	}

	s.WithPersisters(t, clk)
	s.Settle(t, id)
	if r := s.Call(t, "POST", "/api/v1/orders/"+ann.Str("order_id")+"/pay", e2etest.MintToken(t, "ann"), nil); r.Status != 200 {
		t.Fatalf("pay: %d %s", r.Status, r.Raw)
	}
	var r e2etest.Reply // settle sees the order in MySQL; the persister acknowledges it just after
	testenv.WaitFor(t, 10*time.Second, func() bool { r = retire(); return !strings.Contains(r.Raw, "still being persisted") },
		"the persister acknowledges ann's order")
	if r.Status != 200 || r.Str("retired_at") == "" {
		t.Fatalf("retire once ann's order is in MySQL: %d %s", r.Status, r.Raw)
	}
	var n int64
	if err := s.Db.Gorm.Raw("SELECT COUNT(*) FROM orders WHERE item_id = ?", id).Scan(&n).Error; err != nil || n != 1 {
		t.Fatalf("orders of the retired sale in MySQL: %d, %v; want ann's alone", n, err)
	}
}
