package fault

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/harness"
	"github.com/seckill/seckill/internal/redisconn"
)

// TestMySQLDownMidStorm stops a private MariaDB for ~10 s mid-storm. Redis
// alone answers purchases, so shoppers keep getting 202; the queue of
// unpersisted orders grows; /readyz answers 200 "degraded" naming mysql
// (Redis down would be 503: only MySQL down means orders are still taken);
// and once MySQL is back, every order is persisted exactly once. It runs on
// a single Redis and on a Redis Cluster.
func TestMySQLDownMidStorm(t *testing.T) { onEachRedis(t, mysqlDownMidStorm) }

func mysqlDownMidStorm(t *testing.T, red redisconn.Target) {
	const outage = 10 * time.Second
	s := NewSetup(t, env)
	my := StartMariaDB(t, env.ProcEnv, s.Dir)
	s.MySQLBase = my.BaseDSN()
	srv, db, _, id, _, cfg, storm := stormWith(t, s, red, 3000,
		StormConfig{Shoppers: 2500, Requests: 3000, Workers: 16, Rate: 200, MaxQty: 2, Seed: 6})

	storm.WaitDone(t, 300)
	stopTook := my.Stop(t)
	down, stoppedAfter := time.Now(), storm.Done()
	samples := watch(srv.API, down.Add(outage))
	restart := my.Up(t)
	up := time.Now()
	t.Logf("injected: SIGTERM to MariaDB after %d requests (down in %v), kept down %v, restarted in %v",
		stoppedAfter, stopTook.Round(time.Millisecond), up.Sub(down).Round(time.Millisecond), restart.Round(time.Millisecond))

	res := storm.Wait()
	logStorm(t, cfg, res)
	checkOutage(t, res, samples, down, up)
	Verify(t, db, srv.API, id, res)
}

// sample is one look at the server while MySQL is down.
type sample struct {
	ready   int    // /readyz status code
	state   string // its "status" field
	raw     string
	pending float64 // seckill_stream_pending_orders
}

// watch reads /readyz and the queue length every 250 ms until until: the
// outage lasts that long.
func watch(api *harness.Client, until time.Time) []sample {
	var out []sample
	for time.Now().Before(until) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		var sm sample
		if r, err := api.Do(ctx, "GET", "/readyz", "", nil); err == nil {
			sm.ready, sm.raw, sm.state = r.Status, r.Raw, r.Str("status")
		} else {
			sm.raw = err.Error()
		}
		sm.pending, _ = metricOf(ctx, api, "seckill_stream_pending_orders")
		cancel()
		out = append(out, sm)
		// A sleep is right here: the test is about a server living through
		// an outage of a given length of real time (the queue must grow,
		// readiness must say degraded all along), so elapsed time, not a
		// condition, ends it; the samples are what it checks afterwards.
		time.Sleep(250 * time.Millisecond)
	}
	return out
}

func checkOutage(t testing.TB, res Result, samples []sample, down, up time.Time) {
	t.Helper()
	reserved, refused := res.CountIn(down, up, "202"), res.CountIn(down, up, "503 unavailable")
	answers := map[string]int{}
	degraded := 0
	for _, sm := range samples {
		answers[fmt.Sprintf("%d %s", sm.ready, sm.state)]++
		if sm.ready == http.StatusOK && sm.state == "degraded" && mentionsMySQL(sm.raw) {
			degraded++
		}
	}
	first, last := samples[0].pending, samples[len(samples)-1].pending
	t.Logf("while MySQL was down: %d new 202s, %d × 503; orders queued in Redis %.0f → %.0f; /readyz answers %v, e.g. %s",
		reserved, refused, first, last, answers, samples[len(samples)/2].raw)
	if reserved == 0 {
		t.Errorf("no purchase got a 202 while MySQL was down")
	}
	if refused > 0 {
		t.Errorf("%d purchases got 503 while only MySQL was down; Redis alone should answer them", refused)
	}
	if last <= first {
		t.Errorf("the queue did not grow while MySQL was down: %.0f → %.0f", first, last)
	}
	if degraded == 0 {
		t.Errorf(`/readyz never answered 200 {"status":"degraded", ...mysql...} while MySQL was down: %v, e.g. %s`,
			answers, samples[0].raw)
	}
}

// mentionsMySQL tells whether a readiness body names mysql as what failed.
func mentionsMySQL(raw string) bool {
	var body map[string]any
	return json.Unmarshal([]byte(raw), &body) == nil && strings.Contains(raw, "mysql")
}
