package ops

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// A Redis that lost its script cache (a restart, a failover, SCRIPT FLUSH)
// costs purchases nothing: the script is sent again, and the reload is
// counted. On a private Redis: SCRIPT FLUSH would empty the shared one's
// cache under every other test.
func TestPurchaseAfterScriptFlushCountsReload(t *testing.T) {
	t.Parallel()
	addr := testenv.PrivateRedis(t)
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0), e2etest.On(redisconn.Target{Addr: addr}))
	id := s.Sale(t, 100, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	raw := redis.NewClient(&redis.Options{Addr: addr})
	defer raw.Close()
	reloads := `seckill_redis_script_reloads_total{script="reserve"}`
	if n := e2etest.Series(t, s, reloads); n != 0 {
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
		e2etest.Check(t, s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", s.Login(t, fmt.Sprint("shopper-", buyer)), nil), e2etest.Want{Status: 202})
		return e2etest.Series(t, s, reloads) >= 1
	}, "a purchase after SCRIPT FLUSH counts no reload")
	if n := e2etest.Series(t, s, `seckill_redis_script_duration_seconds_count{script="reserve"}`); n < float64(buyer) {
		t.Errorf("reserve script calls timed = %v, want at least one per purchase (%d)", n, buyer)
	}
}

// A script stuck past Redis's busy limit makes Redis refuse every command:
// a purchase is answered 503 at once, with Retry-After, and counted; once
// the script is killed, purchases go through again.
func TestPurchaseWhileRedisBusyAnswers503(t *testing.T) {
	t.Parallel()
	addr := testenv.PrivateRedis(t, "--busy-reply-threshold", "100")
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0), e2etest.On(redisconn.Target{Addr: addr}))
	id := s.Sale(t, 100, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	e2etest.Check(t, s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", s.Login(t, "before"), nil), e2etest.Want{Status: 202})
	token := s.Login(t, "during")

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
	r := s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", token, nil)
	took := time.Since(began)
	e2etest.Check(t, r, e2etest.Want{Status: 503, Code: "unavailable"})
	if r.Header.Get("Retry-After") == "" {
		t.Errorf("503 busy without Retry-After")
	}
	if took > time.Second {
		t.Errorf("the busy answer took %v, want it at once", took)
	}
	if n := e2etest.Series(t, s, "seckill_redis_busy_total"); n < 1 {
		t.Errorf("seckill_redis_busy_total = %v, want >= 1", n)
	}

	if err := probe.ScriptKill(context.Background()).Err(); err != nil {
		t.Fatalf("SCRIPT KILL: %v", err)
	}
	if err := <-ended; err == nil {
		t.Fatalf("the stuck script ended without an error; was it killed?")
	}
	testenv.WaitFor(t, 5*time.Second, func() bool {
		return s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", token, nil).Status == 202
	}, "purchases did not work again after SCRIPT KILL")
}
