package fault

import (
	"testing"
	"time"

	"github.com/seckill/seckill/internal/redisconn"
)

// TestSIGTERMMidStorm sends SIGTERM to the server mid-storm. It must exit
// with code 0 within SECKILL_SHUTDOWN_TIMEOUT plus a small margin, having
// answered what was in flight; a restarted server drains whatever was still
// queued, and no acknowledged order is lost. It runs on a single Redis and
// on a Redis Cluster.
func TestSIGTERMMidStorm(t *testing.T) { onEachRedis(t, sigtermMidStorm) }

func sigtermMidStorm(t *testing.T, red redisconn.Target) {
	const margin = 3 * time.Second
	s, srv, db, rdb, id, stream, cfg, storm := oneServerStorm(t, 3, red)

	storm.WaitDone(t, cfg.Requests/3)
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
	Verify(t, db, srv.API, id, res)
	noneHeldBy(t, rdb, stream, srv.Instance())
}
