package purchase

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

func TestPayAndCancel(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0))
	id := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	orders := e2etest.BuyConfirmed(t, s, id, "alice", "bob")
	alice, bob := e2etest.MintToken(t, "alice"), e2etest.MintToken(t, "bob")
	pay := func(tok, oid string) e2etest.Reply { return s.Call(t, "POST", "/api/v1/orders/"+oid+"/pay", tok, nil) }
	cancel := func(tok, oid string) e2etest.Reply {
		return s.Call(t, "POST", "/api/v1/orders/"+oid+"/cancel", tok, nil)
	}

	e2etest.Check(t, pay(bob, orders[0]), e2etest.Want{Status: 404, Code: "order_not_found"})
	e2etest.Check(t, cancel(bob, orders[0]), e2etest.Want{Status: 404, Code: "order_not_found"})
	e2etest.Check(t, pay("", orders[0]), e2etest.Want{Status: 401, Code: "unauthenticated"})
	if r := pay(alice, orders[0]); r.Status != 200 || r.Str("status") != "paid" {
		t.Fatalf("pay: %d %s", r.Status, r.Raw)
	}
	if r := pay(alice, orders[0]); r.Status != 200 || r.Str("status") != "paid" {
		t.Fatalf("paying again must be harmless: %d %s", r.Status, r.Raw)
	}
	e2etest.Check(t, cancel(alice, orders[0]), e2etest.Want{Status: 409, Code: "order_paid"})

	if r := cancel(bob, orders[1]); r.Status != 200 || r.Str("status") != "cancelled" {
		t.Fatalf("cancel: %d %s", r.Status, r.Raw)
	}
	e2etest.Check(t, pay(bob, orders[1]), e2etest.Want{Status: 409, Code: "order_cancelled"})
	if r := cancel(bob, orders[1]); r.Status != 200 {
		t.Fatalf("cancelling again must be harmless: %d %s", r.Status, r.Raw)
	}
	st := s.Stats(t, id)
	if st.Body["consistent"] != true || st.Body["stock_redis"].(float64) != 4 || st.Body["stock_mysql"].(float64) != 4 ||
		st.Body["orders_cancelled"].(float64) != 1 {
		t.Fatalf("after one paid and one cancelled order: %s", st.Raw)
	}
	again := s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", bob, nil)
	e2etest.Check(t, again, e2etest.Want{Status: 202})
	if again.Str("order_id") == orders[1] {
		t.Fatal("buying again after cancelling returned the cancelled order")
	}
	if st := s.Settle(t, id); st.Body["consistent"] != true || st.Body["stock_mysql"].(float64) != 3 {
		t.Fatalf("after buying again: %s", st.Raw)
	}
}

// TestPayRacesCancel: for each order a pay and a cancel are sent at once.
// Exactly one wins; the loser gets 409 and changes nothing.
func TestPayRacesCancel(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0))
	const n = 40
	id := s.Sale(t, n, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	users := make([]string, n)
	for i := range users {
		users[i] = "racer" + strconv.Itoa(i)
	}
	orders := e2etest.BuyConfirmed(t, s, id, users...)
	var paid, cancelled int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, oid := range orders {
		tok := e2etest.MintToken(t, users[i])
		var a, b e2etest.Reply
		wg.Go(func() { a = s.Call(t, "POST", "/api/v1/orders/"+oid+"/pay", tok, nil) })
		wg.Go(func() { b = s.Call(t, "POST", "/api/v1/orders/"+oid+"/cancel", tok, nil) })
		wg.Wait()
		mu.Lock()
		switch {
		case a.Status == 200 && b.Status == 409 && b.ErrCode() == "order_paid":
			paid++
		case b.Status == 200 && a.Status == 409 && a.ErrCode() == "order_cancelled":
			cancelled++
		default:
			t.Errorf("order %s: pay %d %s, cancel %d %s: want one 200 and one 409", oid, a.Status, a.Raw, b.Status, b.Raw)
		}
		mu.Unlock()
	}
	st := s.Settle(t, id)
	t.Logf("%d pays won, %d cancels won: %s", paid, cancelled, st.Raw)
	if st.Body["consistent"] != true || st.Body["orders_paid"].(float64) != float64(paid) ||
		st.Body["orders_cancelled"].(float64) != float64(cancelled) || st.Body["stock_redis"].(float64) != float64(cancelled) {
		t.Fatalf("after the races: %s", st.Raw)
	}
}

// TestUnpaidOrdersTimeOut: the sweeper cancels orders unpaid after the
// payment timeout, by the server's clock, and gives their stock back; paid
// orders stay.
func TestUnpaidOrdersTimeOut(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk, func(c *config.Config) {
		c.PaymentTimeout, c.SweepEvery = 10*time.Minute, 50*time.Millisecond
	})
	id := s.Sale(t, 3, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	orders := e2etest.BuyConfirmed(t, s, id, "late1", "late2", "payer")
	if r := s.Call(t, "POST", "/api/v1/orders/"+orders[2]+"/pay", e2etest.MintToken(t, "payer"), nil); r.Status != 200 {
		t.Fatalf("pay: %s", r.Raw)
	}
	// A second before the timeout, a whole sweep (the sweeper's second run
	// from now) cancels nothing.
	clk.Set(e2etest.T0.Add(10*time.Minute - time.Second))
	runs := jobRuns(t, s, "sweeper")
	testenv.WaitFor(t, 5*time.Second, func() bool { return jobRuns(t, s, "sweeper") >= runs+2 },
		"the sweeper did not run twice (it runs every 50ms)")
	if st := s.Stats(t, id); st.Body["orders_cancelled"].(float64) != 0 {
		t.Fatalf("orders cancelled before the timeout: %s", st.Raw)
	}
	clk.Set(e2etest.T0.Add(10*time.Minute + time.Second))
	var last e2etest.Reply
	if !testenv.Eventually(5*time.Second, func() bool {
		last = s.Stats(t, id)
		return last.Body["orders_cancelled"].(float64) == 2
	}) {
		t.Fatalf("unpaid orders not cancelled 5s after the timeout: %s", last.Raw)
	}
	// Each cancel gives its unit back in Redis just after MySQL commits it:
	// the stores agree once the second one's Redis step is done.
	var st e2etest.Reply
	testenv.WaitFor(t, 5*time.Second, func() bool { st = s.Stats(t, id); return st.Body["consistent"] == true },
		"the stores disagree 5s after the timeout")
	if st.Body["stock_redis"].(float64) != 2 || st.Body["orders_paid"].(float64) != 1 {
		t.Fatalf("after the timeout: %s", st.Raw)
	}
	e2etest.Check(t, s.Call(t, "POST", "/api/v1/orders/"+orders[0]+"/pay", e2etest.MintToken(t, "late1"), nil), e2etest.Want{Status: 409, Code: "order_cancelled"})
}

// TestReconcileRepairsRedis drifts Redis in two ways and has the admin
// endpoint find and repair both, then report everything consistent. Only the
// repair counts the drift: the dashboard's GET, however often it looks, must
// not raise the drift alert.
func TestReconcileRepairsRedis(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0))
	a := s.Sale(t, 10, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	b := s.Sale(t, 10, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	e2etest.BuyConfirmed(t, s, a, "x1", "x2")
	e2etest.BuyConfirmed(t, s, b, "y1")
	rdb := redis.NewClient(&redis.Options{Addr: s.Cfg.Redis.Addr})
	defer rdb.Close()
	ctx := context.Background()
	keys := keyspace.New(s.Cfg.RedisPrefix)
	// A drifted count: the variant's and, as every script keeps them, the sale's.
	variant := rdb.HKeys(ctx, keys.Item(a).VariantStock()).Val()
	if len(variant) != 1 {
		t.Fatalf("sale %d has variants %v in redis, want one", a, variant)
	}
	rdb.HSet(ctx, keys.Item(a).VariantStock(), variant[0], 42)
	rdb.Set(ctx, keys.Item(a).Stock(), 42, 0)
	rdb.Del(ctx, keys.Item(b).Stock(), keys.Item(b).Meta(), keys.Item(b).Buyers()) // lost sale

	// A GET only looks: it reports both drifts and leaves them in place.
	r := s.Call(t, "GET", "/api/v1/admin/reconcile", e2etest.AdminToken, nil)
	if r.Status != 200 || r.Body["consistent"] != false || !strings.Contains(r.Raw, `Redis stock of variant \"Default\"`) ||
		!strings.Contains(r.Raw, "is +34 off MySQL") || !strings.Contains(r.Raw, "Redis holds no state for the sale") ||
		strings.Contains(r.Raw, `"repaired":true`) {
		t.Fatalf("check: %d %s", r.Status, r.Raw)
	}
	if got := rdb.Get(ctx, keys.Item(a).Stock()).Val(); got != "42" || rdb.Exists(ctx, keys.Item(b).Meta()).Val() != 0 {
		t.Fatalf("after the GET: stock of %d is %q, sale %d exists %d; want both drifts left in place", a, got, b,
			rdb.Exists(ctx, keys.Item(b).Meta()).Val())
	}
	if n := reconcileLogRows(t, s); n != 0 {
		t.Fatalf("after the GET: %d reconcile_log rows, want 0", n)
	}
	s.Call(t, "GET", "/api/v1/admin/reconcile", e2etest.AdminToken, nil)
	const drift = "seckill_reconcile_drift_total"
	if v := e2etest.Series(t, s, drift); v != 0 {
		t.Fatalf("after two GETs of two drifted sales: %s = %v, want 0", drift, v)
	}

	r = s.Call(t, "POST", "/api/v1/admin/reconcile", e2etest.AdminToken, nil)
	if r.Status != 200 || r.Body["consistent"] != false || !strings.Contains(r.Raw, `corrected Redis stock of variant \"Default\"`) || !strings.Contains(r.Raw, "by -34") ||
		!strings.Contains(r.Raw, "warmed from MySQL") {
		t.Fatalf("first reconcile: %d %s", r.Status, r.Raw)
	}
	if v := e2etest.Series(t, s, drift); v != 2 {
		t.Fatalf("after the repair of two drifted sales: %s = %v, want 2", drift, v)
	}
	r = s.Call(t, "GET", "/api/v1/admin/reconcile", e2etest.AdminToken, nil)
	if r.Body["consistent"] != true || strings.Contains(r.Raw, "off MySQL") {
		t.Fatalf("check after the repair: %s", r.Raw)
	}
	r = s.Call(t, "POST", "/api/v1/admin/reconcile", e2etest.AdminToken, nil)
	if r.Body["consistent"] != true || strings.Contains(r.Raw, "corrected") {
		t.Fatalf("second reconcile: %s", r.Raw)
	}
	if v := e2etest.Series(t, s, drift); v != 2 {
		t.Fatalf("after reconciling consistent sales: %s = %v, want still 2", drift, v)
	}
	e2etest.Check(t, s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(b)+"/purchase", e2etest.MintToken(t, "y1"), nil), e2etest.Want{Status: 409, Code: "already_purchased"})
	e2etest.Check(t, s.Call(t, "GET", "/api/v1/admin/reconcile", "", nil), e2etest.Want{Status: 401, Code: "unauthenticated"})
	e2etest.Check(t, s.Call(t, "POST", "/api/v1/admin/reconcile", "", nil), e2etest.Want{Status: 401, Code: "unauthenticated"})
}

// reconcileLogRows counts the repairs recorded in the server's database.
func reconcileLogRows(tb testing.TB, s *e2etest.Server) int {
	tb.Helper()
	var n int64
	if err := s.Db.Gorm.Table("reconcile_log").Count(&n).Error; err != nil {
		tb.Fatal(err)
	}
	return int(n)
}

// jobRuns reads how many runs of a singleton job (sweeper, reconcile) this
// server has begun.
func jobRuns(tb testing.TB, s *e2etest.Server, job string) int {
	tb.Helper()
	m := regexp.MustCompile(`seckill_job_runs_total\{job="` + job + `"\} (\d+)`).FindStringSubmatch(s.Call(tb, "GET", "/metrics", "", nil).Raw)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestReplayAnswersTheOrdersStatus: a retry with the Idempotency-Key of an
// order since cancelled or paid answers that order with its real status
// (still 202 and Idempotent-Replayed, as every replay), not "pending", and
// takes no second unit.
func TestReplayAnswersTheOrdersStatus(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0))
	id := s.Sale(t, 10, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	buy := "/api/v1/items/" + e2etest.Itoa(id) + "/purchase"
	for _, tc := range []struct{ user, action, want string }{
		{"rp-cancel", "cancel", "cancelled"},
		{"rp-pay", "pay", "paid"},
	} {
		tok := e2etest.MintToken(t, tc.user)
		first := s.Call(t, "POST", buy, tok, nil, "Idempotency-Key", "k-"+tc.user)
		e2etest.Check(t, first, e2etest.Want{Status: 202})
		oid := first.Str("order_id")
		// Before MySQL has it, and once it has, the replay says what is so.
		s.Settle(t, id)
		if r := s.Call(t, "POST", buy, tok, nil, "Idempotency-Key", "k-"+tc.user); r.Str("status") != "confirmed" || r.Str("order_id") != oid {
			t.Fatalf("%s: replay of a confirmed order: %d %s", tc.user, r.Status, r.Raw)
		}
		e2etest.Check(t, s.Call(t, "POST", "/api/v1/orders/"+oid+"/"+tc.action, tok, nil), e2etest.Want{Status: 200})
		r := s.Call(t, "POST", buy, tok, nil, "Idempotency-Key", "k-"+tc.user)
		e2etest.Check(t, r, e2etest.Want{Status: 202})
		if r.Str("status") != tc.want || r.Str("order_id") != oid || r.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("%s: replay after %s: %s %v, want status %q of order %s", tc.user, tc.action, r.Raw, r.Header, tc.want, oid)
		}
	}
	st := s.Settle(t, id)
	if st.Body["stock_redis"].(float64) != 9 || st.Body["consistent"] != true {
		t.Fatalf("after the replays: %s, want 9 left (one paid, one cancelled) and consistent", st.Raw)
	}
}
