package fault

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/harness"
	"github.com/seckill/seckill/internal/redisconn"
)

// TestRedisRestartMidStorm kill -9s a private Redis (AOF, appendfsync
// always) mid-storm and restarts it on the same directory and port. The
// server reconnects, its scripts are loaded again (Script.Run falls back to
// EVAL on NOSCRIPT), purchases succeed again, and since every acknowledged
// write was fsynced first, no 202 is lost.
func TestRedisRestartMidStorm(t *testing.T) {
	s := NewSetup(t, env)
	red := StartRedis(t, env.ProcEnv, s.Dir)
	srv, db, rdb, id, stream, cfg, storm := stormWith(t, s, redisconn.Target{Addr: red.Addr}, 2500,
		StormConfig{Shoppers: 1500, Requests: 3000, Workers: 32, Rate: 600, MaxQty: 2, Seed: 5})

	storm.WaitDone(t, cfg.Requests/3)
	queued := streamLen(t, rdb, stream)
	red.Kill9(t)
	down, killedAfter := time.Now(), storm.Done()
	meetOutage(t, storm, cfg, killedAfter)
	restart := time.Now()
	load := red.Up(t)
	t.Logf("injected: kill -9 of Redis after %d requests with %d orders queued; restarted on the same AOF "+
		"%v after the kill, answering PING %v later", killedAfter, queued, restart.Sub(down).Round(time.Millisecond),
		load.Round(time.Millisecond))

	res := storm.Wait()
	logStorm(t, cfg, res)
	pong, end := restart.Add(load), restart.Add(time.Hour)
	// A 202 in the first window was read from Redis before the kill and
	// reached the client just after it. Between the restart and the first
	// PONG, Redis is loading its AOF.
	t.Logf("while Redis was down: %d × 503 unavailable, %d × 202; while it loaded: %d × 503, %d × 202; "+
		"after: %d × 202 (new reservations), %d × 503",
		res.CountIn(down, restart, "503 unavailable"), res.CountIn(down, restart, "202"),
		res.CountIn(restart, pong, "503 unavailable"), res.CountIn(restart, pong, "202"),
		res.CountIn(pong, end, "202"), res.CountIn(pong, end, "503 unavailable"))
	if res.CountIn(restart, end, "202") == 0 {
		t.Errorf("no new reservation after Redis came back: scripts not reloaded, or no reconnect")
	}
	ready(t, srv.API)
	Verify(t, db, srv.API, id, res)
}

// ready waits up to 10s for GET /readyz to answer 200.
func ready(t testing.TB, api *harness.Client) {
	t.Helper()
	err := poll(10*time.Second, 100*time.Millisecond, func() error {
		r, err := api.Do(context.Background(), "GET", "/readyz", "", nil)
		if err == nil && r.Status != http.StatusOK {
			err = fmt.Errorf("%d %s", r.Status, r.Raw)
		}
		return err
	})
	if err != nil {
		t.Errorf("GET /readyz after recovery: %v", err)
	}
}
