package fault

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/redisconn"
)

// TestEndpointFailoverMidStorm is a managed Redis without cluster mode: a
// primary, a replica, and a failover endpoint the server connects to. The
// replica replicates through a proxy. Mid-storm the proxy stops passing
// bytes, the primary sells alone for about 0.3 s, is killed -9, the replica
// is promoted and the endpoint moved to it. Reservations the replica never
// got were answered 503 replication_timeout, never 202, so every invariant
// holds: each acknowledged order is in MySQL exactly once, no shopper is
// told of two orders, nothing is oversold. (With SECKILL_REDIS_MIN_REPLICAS=0
// the same run lost hundreds of acknowledged orders.)
func TestEndpointFailoverMidStorm(t *testing.T) {
	s := NewSetup(t, env)
	primary := StartRedis(t, env.ProcEnv, filepath.Join(s.Dir, "primary"))
	replica := StartRedis(t, env.ProcEnv, filepath.Join(s.Dir, "replica"))
	link := StartProxy(t, primary.Addr)
	follow(t, primary.Addr, replica.Addr, link.Addr)
	endpoint := StartProxy(t, primary.Addr)
	sold := make(chan struct{})
	srv, db, _, id, _, cfg, storm := stormWith(t, s, redisconn.Target{Addr: endpoint.Addr}, 2500,
		StormConfig{Shoppers: 1500, Requests: 4000, Workers: 32, Rate: 600, MaxQty: 2, Seed: 9, Until: sold})

	storm.WaitDone(t, cfg.Requests/4)
	link.Pause()
	cut, cutAfter := time.Now(), storm.Done()
	// The fault's length, not a wait for anything: the primary sells
	// alone for 0.3 s.
	<-time.After(300 * time.Millisecond)
	ahead := replicationLag(t, primary.Addr, replica.Addr)
	primary.Kill9(t)
	killed := time.Now()
	promote(t, replica.Addr)
	link.Close()
	endpoint.Move(replica.Addr)
	moved := time.Now()
	// As a managed Redis does, a fresh replica joins the new primary: until
	// then its sales answer 503 and their orders wait in Redis.
	fresh := StartRedis(t, env.ProcEnv, filepath.Join(s.Dir, "fresh"))
	follow(t, replica.Addr, fresh.Addr, replica.Addr)
	joined := time.Now()
	// The storm goes on until the new primary, with its replica, sells.
	storm.WaitEvent(t, time.Minute, joined, "202")
	close(sold)
	t.Logf("injected: replication cut after %d requests; the primary sold alone for %v (%d bytes of replication ahead), "+
		"was killed -9; replica promoted and the endpoint moved %v later; a fresh replica synced %v after that",
		cutAfter, killed.Sub(cut).Round(time.Millisecond), ahead, moved.Sub(killed).Round(time.Millisecond),
		joined.Sub(moved).Round(time.Millisecond))

	res := storm.Wait()
	logStorm(t, cfg, res)
	end := joined.Add(time.Hour)
	t.Logf("before the cut: %d × 202; while cut off: %d × 202, %d × 503 replication_timeout; until a replica joined: %d × 202, "+
		"%d × 503; after: %d × 202, %d × 503 replication_timeout",
		res.CountIn(time.Time{}, cut, "202"), res.CountIn(cut, killed, "202"), res.CountIn(cut, killed, "503 replication_timeout"),
		res.CountIn(moved, joined, "202"), res.CountIn(moved, joined, "503 replication_timeout"),
		res.CountIn(joined, end, "202"), res.CountIn(joined, end, "503 replication_timeout"))
	if ahead <= 0 {
		t.Errorf("the primary was not ahead of its replica when it died: the cut did not cut")
	}
	refusedWhileCutOff(t, res, cut, killed)
	ready(t, srv.API)
	reconcile(t, srv.API)
	Verify(t, db, srv.API, id, res)
}

// refusedWhileCutOff fails unless a reservation taken between the cut and
// the kill was answered 503 replication_timeout: the replica's offset
// cannot say what the master took alone (a thawed replica still reads what
// its socket held), the answers can, and without one the test proved
// nothing.
func refusedWhileCutOff(t *testing.T, res Result, cut, killed time.Time) {
	t.Helper()
	if res.CountIn(cut, killed, "503 replication_timeout") == 0 {
		t.Errorf("no reservation was answered 503 replication_timeout while the replica was cut off: the test proved nothing")
	}
}

// follow makes the Redis at replica replicate primary through the proxy at
// via, and waits until it has synced.
func follow(t testing.TB, primary, replica, via string) {
	t.Helper()
	ctx := context.Background()
	p, r := redis.NewClient(&redis.Options{Addr: primary}), redis.NewClient(&redis.Options{Addr: replica})
	defer p.Close()
	defer r.Close()
	if err := p.ConfigSet(ctx, "repl-diskless-sync-delay", "0").Err(); err != nil {
		t.Fatal(err)
	}
	host, port, _ := strings.Cut(via, ":")
	if err := r.SlaveOf(ctx, host, port).Err(); err != nil {
		t.Fatal(err)
	}
	err := poll(30*time.Second, 20*time.Millisecond, func() error {
		if info := r.Info(ctx, "replication").Val(); !strings.Contains(info, "master_link_status:up") {
			return fmt.Errorf("replica %s not synced", replica)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// replicationLag is how many bytes of replication the primary has that the
// replica has not received.
func replicationLag(t testing.TB, primary, replica string) int64 {
	t.Helper()
	return replOffset(t, primary, "master_repl_offset") - replOffset(t, replica, "master_repl_offset")
}

func replOffset(t testing.TB, addr, field string) int64 {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	info, err := c.Info(context.Background(), "replication").Result()
	if err != nil {
		t.Fatalf("INFO replication of %s: %v", addr, err)
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), field+":"); ok {
			var n int64
			fmt.Sscan(v, &n)
			return n
		}
	}
	t.Fatalf("INFO replication of %s has no %s", addr, field)
	return 0
}

// promote makes a replica a primary, as a failover does.
func promote(t testing.TB, addr string) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	if err := c.SlaveOf(context.Background(), "NO", "ONE").Err(); err != nil {
		t.Fatalf("REPLICAOF NO ONE on %s: %v", addr, err)
	}
}
