package fault

import (
	"testing"
	"time"

	"github.com/seckill/seckill/internal/redisconn"
)

// TestKill9MidStorm kill -9s the only server while it persists orders, then
// restarts it on the same database, Redis prefix and port. The restarted
// process, the same instance, takes back the entries its previous run held
// (TestKill9RestartTakesBackItsOwn times that), and every acknowledged
// order is in MySQL exactly once.
// It runs on a single Redis and on a Redis Cluster.
func TestKill9MidStorm(t *testing.T) { onEachRedis(t, kill9MidStorm) }

func kill9MidStorm(t *testing.T, red redisconn.Target) {
	_, srv, db, rdb, id, stream, cfg, storm := oneServerStorm(t, 1, red)

	storm.WaitDone(t, cfg.Requests/3)
	dead := srv.Pid()
	held := KillWhenHolding(t, rdb, stream, srv, 2*time.Second)
	killedAfter, queued := storm.Done(), streamLen(t, rdb, stream)
	restart := srv.Up(t)
	t.Logf("injected: kill -9 of the server (pid %d) after %d requests, its workers holding %d unacknowledged entries, "+
		"%d orders queued; restarted in %v", dead, killedAfter, held, queued, restart.Round(time.Millisecond))

	res := storm.Wait()
	logStorm(t, cfg, res)
	rep := Verify(t, db, srv.API, id, res)
	noneHeldBy(t, rdb, stream, srv.Instance())
	if rep.Rows == 0 || res.Count("202") == 0 {
		t.Fatalf("nothing was sold: %s", res.Summary())
	}
}

// TestTwoServersOneKilled runs two servers on one database and Redis prefix,
// spreads the storm over both and kill -9s one while its workers hold
// entries. The survivor's workers reclaim them (XAUTOCLAIM after
// SECKILL_CLAIM_IDLE) with nothing lost or doubled. It runs on a single
// Redis and on a Redis Cluster.
func TestTwoServersOneKilled(t *testing.T) { onEachRedis(t, twoServersOneKilled) }

func twoServersOneKilled(t *testing.T, red redisconn.Target) {
	s := NewSetup(t, env)
	a := StartServer(t, s, "server-a", red)
	b := StartServer(t, s, "server-b", red)
	db, rdb := s.OpenDB(t), redisClient(t, red)
	id := createSale(t, a.API, 1500, 2)
	stream := StreamKey(s.Prefix, id)
	cfg := StormConfig{ItemID: id, Shoppers: 1200, Requests: 3000, Workers: 32, Rate: 1000,
		MaxQty: 2, Secret: s.JWTSecret, Seed: 2}
	targets := NewTargets(a.URL, b.URL)
	storm := StartStorm(t, cfg, targets)

	storm.WaitDone(t, cfg.Requests/3)
	dead := b.Pid()
	held := KillWhenHolding(t, rdb, stream, b, 2*time.Second)
	targets.Set(a.URL) // the load balancer notices
	t.Logf("injected: kill -9 of server-b (pid %d) after %d requests, its workers holding %d unacknowledged entries; "+
		"server-a (pid %d) takes every request after", dead, storm.Done(), held, a.Pid())

	res := storm.Wait()
	logStorm(t, cfg, res)
	Verify(t, db, a.API, id, res)
	noneHeldBy(t, rdb, stream, b.Instance())
	if !a.Running() {
		t.Fatal("the survivor died")
	}
}
