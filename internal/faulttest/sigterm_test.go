package faulttest_test

import (
	"testing"
	"time"

	"github.com/seckill/seckill/internal/faulttest"
)

// TestSIGTERMMidStorm sends SIGTERM to the server mid-storm. It must exit
// with code 0 within SECKILL_SHUTDOWN_TIMEOUT plus a small margin, having
// answered what was in flight; a restarted server drains whatever was still
// queued, and no acknowledged order is lost.
func TestSIGTERMMidStorm(t *testing.T) {
	const margin = 3 * time.Second
	s := faulttest.NewSetup(t, env)
	srv := faulttest.StartServer(t, s, "server", env.RedisAddr)
	db, rdb := s.OpenDB(t), redisClient(t, env.RedisAddr)
	id := srv.API.CreateSale(t, 1500, 2)
	stream := faulttest.StreamKey(s.Prefix, id)
	cfg := faulttest.StormConfig{ItemID: id, Shoppers: 1200, Requests: 3000, Workers: 32, Rate: 1000,
		MaxQty: 2, Secret: s.JWTSecret, Seed: 3}
	storm := faulttest.StartStorm(t, cfg, faulttest.NewTargets(srv.URL))

	storm.WaitDone(cfg.Requests / 3)
	pid, sentAfter, sent := srv.Pid(), storm.Done(), time.Now()
	code, took := srv.Term(t, s.ShutdownTimeout+margin)
	queued := streamLen(t, rdb, stream)
	t.Logf("injected: SIGTERM to the server (pid %d) after %d requests: exit code %d after %v "+
		"(SECKILL_SHUTDOWN_TIMEOUT %v); %d orders left queued in Redis for the next server",
		pid, sentAfter, code, took.Round(time.Millisecond), s.ShutdownTimeout, queued)
	if code != 0 {
		t.Errorf("exit code %d after SIGTERM, want 0", code)
	}
	restart := srv.Up(t)
	t.Logf("restarted in %v", restart.Round(time.Millisecond))

	res := storm.Wait()
	logStorm(t, cfg, res)
	exited := sent.Add(took)
	t.Logf("answered between SIGTERM and exit: %d, of which %d × 202", res.AnsweredIn(sent, exited), res.CountIn(sent, exited, "202"))
	faulttest.Verify(t, db, srv.API, id, res)
	noneHeldBy(t, rdb, stream, pid)
}
