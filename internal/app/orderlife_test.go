package app_test

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
)

// buyConfirmed buys for each user and waits until the orders are in MySQL.
func buyConfirmed(t *testing.T, s *server, id int64, users ...string) []string {
	t.Helper()
	ids := make([]string, len(users))
	for i, u := range users {
		r := s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", mintToken(t, u), nil)
		check(t, r, want{202, "", ""})
		ids[i] = r.str("order_id")
	}
	s.settle(t, id)
	return ids
}

func TestPayAndCancel(t *testing.T) {
	t.Parallel()
	s := start(t, newClock(t0))
	id := s.sale(t, 5, 1, t0, t0.Add(time.Hour))
	orders := buyConfirmed(t, s, id, "alice", "bob")
	alice, bob := mintToken(t, "alice"), mintToken(t, "bob")
	pay := func(tok, oid string) reply { return s.call(t, "POST", "/api/v1/orders/"+oid+"/pay", tok, nil) }
	cancel := func(tok, oid string) reply { return s.call(t, "POST", "/api/v1/orders/"+oid+"/cancel", tok, nil) }

	check(t, pay(bob, orders[0]), want{404, "order_not_found", ""})
	check(t, cancel(bob, orders[0]), want{404, "order_not_found", ""})
	check(t, pay("", orders[0]), want{401, "unauthenticated", ""})
	if r := pay(alice, orders[0]); r.status != 200 || r.str("status") != "paid" {
		t.Fatalf("pay: %d %s", r.status, r.raw)
	}
	if r := pay(alice, orders[0]); r.status != 200 || r.str("status") != "paid" {
		t.Fatalf("paying again must be harmless: %d %s", r.status, r.raw)
	}
	check(t, cancel(alice, orders[0]), want{409, "order_paid", ""})

	if r := cancel(bob, orders[1]); r.status != 200 || r.str("status") != "cancelled" {
		t.Fatalf("cancel: %d %s", r.status, r.raw)
	}
	check(t, pay(bob, orders[1]), want{409, "order_cancelled", ""})
	if r := cancel(bob, orders[1]); r.status != 200 {
		t.Fatalf("cancelling again must be harmless: %d %s", r.status, r.raw)
	}
	st := s.stats(t, id)
	if st.body["consistent"] != true || st.body["stock_redis"].(float64) != 4 || st.body["stock_mysql"].(float64) != 4 ||
		st.body["orders_cancelled"].(float64) != 1 {
		t.Fatalf("after one paid and one cancelled order: %s", st.raw)
	}
	again := s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", bob, nil)
	check(t, again, want{202, "", ""})
	if again.str("order_id") == orders[1] {
		t.Fatal("buying again after cancelling returned the cancelled order")
	}
	if st := s.settle(t, id); st.body["consistent"] != true || st.body["stock_mysql"].(float64) != 3 {
		t.Fatalf("after buying again: %s", st.raw)
	}
}

// TestPayRacesCancel: for each order a pay and a cancel are sent at once.
// Exactly one wins; the loser gets 409 and changes nothing.
func TestPayRacesCancel(t *testing.T) {
	t.Parallel()
	s := start(t, newClock(t0))
	const n = 40
	id := s.sale(t, n, 1, t0, t0.Add(time.Hour))
	users := make([]string, n)
	for i := range users {
		users[i] = "racer" + strconv.Itoa(i)
	}
	orders := buyConfirmed(t, s, id, users...)
	var paid, cancelled int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, oid := range orders {
		tok := mintToken(t, users[i])
		var a, b reply
		wg.Go(func() { a = s.call(t, "POST", "/api/v1/orders/"+oid+"/pay", tok, nil) })
		wg.Go(func() { b = s.call(t, "POST", "/api/v1/orders/"+oid+"/cancel", tok, nil) })
		wg.Wait()
		mu.Lock()
		switch {
		case a.status == 200 && b.status == 409 && b.errCode() == "order_paid":
			paid++
		case b.status == 200 && a.status == 409 && a.errCode() == "order_cancelled":
			cancelled++
		default:
			t.Errorf("order %s: pay %d %s, cancel %d %s: want one 200 and one 409", oid, a.status, a.raw, b.status, b.raw)
		}
		mu.Unlock()
	}
	st := s.settle(t, id)
	t.Logf("%d pays won, %d cancels won: %s", paid, cancelled, st.raw)
	if st.body["consistent"] != true || st.body["orders_paid"].(float64) != float64(paid) ||
		st.body["orders_cancelled"].(float64) != float64(cancelled) || st.body["stock_redis"].(float64) != float64(cancelled) {
		t.Fatalf("after the races: %s", st.raw)
	}
}

// TestUnpaidOrdersTimeOut: the sweeper cancels orders unpaid after the
// payment timeout, by the server's clock, and gives their stock back; paid
// orders stay.
func TestUnpaidOrdersTimeOut(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk, func(c *config.Config) {
		c.PaymentTimeout, c.SweepEvery = 10*time.Minute, 50*time.Millisecond
	})
	id := s.sale(t, 3, 1, t0, t0.Add(time.Hour))
	orders := buyConfirmed(t, s, id, "late1", "late2", "payer")
	if r := s.call(t, "POST", "/api/v1/orders/"+orders[2]+"/pay", mintToken(t, "payer"), nil); r.status != 200 {
		t.Fatalf("pay: %s", r.raw)
	}
	// A second before the timeout, a whole sweep (the sweeper's second run
	// from now) cancels nothing.
	clk.Set(t0.Add(10*time.Minute - time.Second))
	runs := jobRuns(t, s, "sweeper")
	testenv.WaitFor(t, 5*time.Second, func() bool { return jobRuns(t, s, "sweeper") >= runs+2 },
		"the sweeper did not run twice (it runs every 50ms)")
	if st := s.stats(t, id); st.body["orders_cancelled"].(float64) != 0 {
		t.Fatalf("orders cancelled before the timeout: %s", st.raw)
	}
	clk.Set(t0.Add(10*time.Minute + time.Second))
	var last reply
	if !testenv.Eventually(5*time.Second, func() bool {
		last = s.stats(t, id)
		return last.body["orders_cancelled"].(float64) == 2
	}) {
		t.Fatalf("unpaid orders not cancelled 5s after the timeout: %s", last.raw)
	}
	// Each cancel gives its unit back in Redis just after MySQL commits it:
	// the stores agree once the second one's Redis step is done.
	var st reply
	testenv.WaitFor(t, 5*time.Second, func() bool { st = s.stats(t, id); return st.body["consistent"] == true },
		"the stores disagree 5s after the timeout")
	if st.body["stock_redis"].(float64) != 2 || st.body["orders_paid"].(float64) != 1 {
		t.Fatalf("after the timeout: %s", st.raw)
	}
	check(t, s.call(t, "POST", "/api/v1/orders/"+orders[0]+"/pay", mintToken(t, "late1"), nil), want{409, "order_cancelled", ""})
}

// TestReconcileRepairsRedis drifts Redis in two ways and has the admin
// endpoint find and repair both, then report everything consistent. Only the
// repair counts the drift: the dashboard's GET, however often it looks, must
// not raise the drift alert.
func TestReconcileRepairsRedis(t *testing.T) {
	t.Parallel()
	s := start(t, newClock(t0))
	a := s.sale(t, 10, 1, t0, t0.Add(time.Hour))
	b := s.sale(t, 10, 1, t0, t0.Add(time.Hour))
	buyConfirmed(t, s, a, "x1", "x2")
	buyConfirmed(t, s, b, "y1")
	rdb := redis.NewClient(&redis.Options{Addr: s.cfg.Redis.Addr})
	defer rdb.Close()
	ctx := context.Background()
	keys := keyspace.New(s.cfg.RedisPrefix)
	// A drifted count: the variant's and, as every script keeps them, the sale's.
	variant := rdb.HKeys(ctx, keys.Item(a).VariantStock()).Val()
	if len(variant) != 1 {
		t.Fatalf("sale %d has variants %v in redis, want one", a, variant)
	}
	rdb.HSet(ctx, keys.Item(a).VariantStock(), variant[0], 42)
	rdb.Set(ctx, keys.Item(a).Stock(), 42, 0)
	rdb.Del(ctx, keys.Item(b).Stock(), keys.Item(b).Meta(), keys.Item(b).Buyers()) // lost sale

	// A GET only looks: it reports both drifts and leaves them in place.
	r := s.call(t, "GET", "/api/v1/admin/reconcile", adminToken, nil)
	if r.status != 200 || r.body["consistent"] != false || !strings.Contains(r.raw, `Redis stock of variant \"Default\"`) ||
		!strings.Contains(r.raw, "is +34 off MySQL") || !strings.Contains(r.raw, "Redis holds no state for the sale") ||
		strings.Contains(r.raw, `"repaired":true`) {
		t.Fatalf("check: %d %s", r.status, r.raw)
	}
	if got := rdb.Get(ctx, keys.Item(a).Stock()).Val(); got != "42" || rdb.Exists(ctx, keys.Item(b).Meta()).Val() != 0 {
		t.Fatalf("after the GET: stock of %d is %q, sale %d exists %d; want both drifts left in place", a, got, b,
			rdb.Exists(ctx, keys.Item(b).Meta()).Val())
	}
	if n := reconcileLogRows(t, s); n != 0 {
		t.Fatalf("after the GET: %d reconcile_log rows, want 0", n)
	}
	s.call(t, "GET", "/api/v1/admin/reconcile", adminToken, nil)
	const drift = "seckill_reconcile_drift_total"
	if v := series(t, s, drift); v != 0 {
		t.Fatalf("after two GETs of two drifted sales: %s = %v, want 0", drift, v)
	}

	r = s.call(t, "POST", "/api/v1/admin/reconcile", adminToken, nil)
	if r.status != 200 || r.body["consistent"] != false || !strings.Contains(r.raw, `corrected Redis stock of variant \"Default\"`) || !strings.Contains(r.raw, "by -34") ||
		!strings.Contains(r.raw, "warmed from MySQL") {
		t.Fatalf("first reconcile: %d %s", r.status, r.raw)
	}
	if v := series(t, s, drift); v != 2 {
		t.Fatalf("after the repair of two drifted sales: %s = %v, want 2", drift, v)
	}
	r = s.call(t, "GET", "/api/v1/admin/reconcile", adminToken, nil)
	if r.body["consistent"] != true || strings.Contains(r.raw, "off MySQL") {
		t.Fatalf("check after the repair: %s", r.raw)
	}
	r = s.call(t, "POST", "/api/v1/admin/reconcile", adminToken, nil)
	if r.body["consistent"] != true || strings.Contains(r.raw, "corrected") {
		t.Fatalf("second reconcile: %s", r.raw)
	}
	if v := series(t, s, drift); v != 2 {
		t.Fatalf("after reconciling consistent sales: %s = %v, want still 2", drift, v)
	}
	check(t, s.call(t, "POST", "/api/v1/items/"+itoa(b)+"/purchase", mintToken(t, "y1"), nil), want{409, "already_purchased", ""})
	check(t, s.call(t, "GET", "/api/v1/admin/reconcile", "", nil), want{401, "unauthenticated", ""})
	check(t, s.call(t, "POST", "/api/v1/admin/reconcile", "", nil), want{401, "unauthenticated", ""})
}

// reconcileLogRows counts the repairs recorded in the server's database.
func reconcileLogRows(tb testing.TB, s *server) int {
	tb.Helper()
	var n int64
	if err := s.db.Gorm.Table("reconcile_log").Count(&n).Error; err != nil {
		tb.Fatal(err)
	}
	return int(n)
}

// jobRuns reads how many runs of a singleton job (sweeper, reconcile) this
// server has begun.
func jobRuns(tb testing.TB, s *server, job string) int {
	tb.Helper()
	m := regexp.MustCompile(`seckill_job_runs_total\{job="` + job + `"\} (\d+)`).FindStringSubmatch(s.call(tb, "GET", "/metrics", "", nil).raw)
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
	s := start(t, newClock(t0))
	id := s.sale(t, 10, 1, t0, t0.Add(time.Hour))
	buy := "/api/v1/items/" + itoa(id) + "/purchase"
	for _, tc := range []struct{ user, action, want string }{
		{"rp-cancel", "cancel", "cancelled"},
		{"rp-pay", "pay", "paid"},
	} {
		tok := mintToken(t, tc.user)
		first := s.call(t, "POST", buy, tok, nil, "Idempotency-Key", "k-"+tc.user)
		check(t, first, want{202, "", ""})
		oid := first.str("order_id")
		// Before MySQL has it, and once it has, the replay says what is so.
		s.settle(t, id)
		if r := s.call(t, "POST", buy, tok, nil, "Idempotency-Key", "k-"+tc.user); r.str("status") != "confirmed" || r.str("order_id") != oid {
			t.Fatalf("%s: replay of a confirmed order: %d %s", tc.user, r.status, r.raw)
		}
		check(t, s.call(t, "POST", "/api/v1/orders/"+oid+"/"+tc.action, tok, nil), want{200, "", ""})
		r := s.call(t, "POST", buy, tok, nil, "Idempotency-Key", "k-"+tc.user)
		check(t, r, want{202, "", ""})
		if r.str("status") != tc.want || r.str("order_id") != oid || r.header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("%s: replay after %s: %s %v, want status %q of order %s", tc.user, tc.action, r.raw, r.header, tc.want, oid)
		}
	}
	st := s.settle(t, id)
	if st.body["stock_redis"].(float64) != 9 || st.body["consistent"] != true {
		t.Fatalf("after the replays: %s, want 9 left (one paid, one cancelled) and consistent", st.raw)
	}
}
