package app_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/testenv"
)

// series reads one series' value from the server's /metrics (0 if absent).
func series(tb testing.TB, s *server, name string) float64 {
	tb.Helper()
	page := s.call(tb, "GET", "/metrics", "", nil).raw
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`).FindStringSubmatch(page)
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// A Redis that lost its script cache (a restart, a failover, SCRIPT FLUSH)
// costs purchases nothing: the script is sent again, and the reload is
// counted. On a private Redis: SCRIPT FLUSH would empty the shared one's
// cache under every other test.
func TestPurchaseAfterScriptFlushCountsReload(t *testing.T) {
	t.Parallel()
	addr := testenv.PrivateRedis(t)
	s := start(t, newClock(t0), on(redisconn.Target{Addr: addr}))
	id := s.sale(t, 100, 1, t0, t0.Add(time.Hour))
	raw := redis.NewClient(&redis.Options{Addr: addr})
	defer raw.Close()
	reloads := `seckill_redis_script_reloads_total{script="reserve"}`
	if n := series(t, s, reloads); n != 0 {
		t.Fatalf("%s = %v before any flush, want 0", reloads, n)
	}
	// The background readiness check reloads a flushed cache every two
	// seconds; should it win the race, flush and buy again.
	buyer := 0
	testenv.WaitFor(t, 10*time.Second, func() bool {
		if err := raw.ScriptFlush(context.Background()).Err(); err != nil {
			t.Fatal(err)
		}
		buyer++
		check(t, s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", s.login(t, fmt.Sprint("shopper-", buyer)), nil), want{202, "", ""})
		return series(t, s, reloads) >= 1
	}, "a purchase after SCRIPT FLUSH counts no reload")
	if n := series(t, s, `seckill_redis_script_duration_seconds_count{script="reserve"}`); n < float64(buyer) {
		t.Errorf("reserve script calls timed = %v, want at least one per purchase (%d)", n, buyer)
	}
}

// A script stuck past Redis's busy limit makes Redis refuse every command:
// a purchase is answered 503 at once, with Retry-After, and counted; once
// the script is killed, purchases go through again.
func TestPurchaseWhileRedisBusyAnswers503(t *testing.T) {
	t.Parallel()
	addr := testenv.PrivateRedis(t, "--busy-reply-threshold", "100")
	s := start(t, newClock(t0), on(redisconn.Target{Addr: addr}))
	id := s.sale(t, 100, 1, t0, t0.Add(time.Hour))
	check(t, s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", s.login(t, "before"), nil), want{202, "", ""})
	token := s.login(t, "during")

	stuck := redis.NewClient(&redis.Options{Addr: addr, ReadTimeout: -1})
	defer stuck.Close()
	ended := make(chan error, 1)
	go func() { ended <- stuck.Eval(context.Background(), "while true do end", nil).Err() }()
	probe := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer probe.Close()
	testenv.WaitFor(t, 10*time.Second, func() bool {
		err := probe.Ping(context.Background()).Err()
		return err != nil && regexp.MustCompile(`^BUSY `).MatchString(err.Error())
	}, "redis never said BUSY")

	began := time.Now()
	r := s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", token, nil)
	took := time.Since(began)
	check(t, r, want{503, "unavailable", ""})
	if r.header.Get("Retry-After") == "" {
		t.Errorf("503 busy without Retry-After")
	}
	if took > time.Second {
		t.Errorf("the busy answer took %v, want it at once", took)
	}
	if n := series(t, s, "seckill_redis_busy_total"); n < 1 {
		t.Errorf("seckill_redis_busy_total = %v, want >= 1", n)
	}

	if err := probe.ScriptKill(context.Background()).Err(); err != nil {
		t.Fatalf("SCRIPT KILL: %v", err)
	}
	if err := <-ended; err == nil {
		t.Fatalf("the stuck script ended without an error; was it killed?")
	}
	testenv.WaitFor(t, 5*time.Second, func() bool {
		return s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", token, nil).status == 202
	}, "purchases did not work again after SCRIPT KILL")
}
