package fault

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestClusterMasterDiesAhead is a Redis Cluster master that dies ahead of
// its replica. Mid-storm the sale's master loses its replica for real: the
// replica is frozen (SIGSTOP) and the master drops its link to it (CLIENT
// KILL TYPE replica), so what the master writes next reaches no replica.
// The master sells on for about 0.3 s and is killed -9; the replica thaws
// and the cluster promotes it; the old master comes back as its replica.
// What the master took alone was answered 503 replication_timeout, never
// 202, and never reached MySQL, so every invariant holds: each acknowledged
// order is in MySQL exactly once, no shopper is told of two orders, nothing
// is oversold.
func TestClusterMasterDiesAhead(t *testing.T) {
	s := NewSetup(t, env)
	cl := StartCluster(t, env.ProcEnv, s.Dir, 3, 1, time.Second)
	sold := make(chan struct{})
	srv, db, rdb, id, stream, cfg, storm := stormWith(t, s, cl.Target, 2500,
		StormConfig{Shoppers: 1500, Requests: 4000, Workers: 32, Rate: 600, MaxQty: 2, Seed: 10, Until: sold})

	storm.WaitDone(t, cfg.Requests/4)
	master := cl.MasterOf(t, rdb, stream)
	replicas := cl.ReplicasOf(master)
	if len(replicas) != 1 {
		t.Fatalf("the sale's master %s has %d replicas, want 1", master.Addr, len(replicas))
	}
	replica := replicas[0]
	if err := replica.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	dropReplicas(t, master.Addr)
	cut, cutAfter := time.Now(), storm.Done()
	// The fault's length, not a wait for anything: the master sells alone
	// for 0.3 s.
	<-time.After(300 * time.Millisecond)
	master.Kill9(t)
	killed := time.Now()
	if err := replica.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	promoted, took := cl.WaitPromoted(t, replicas, 30*time.Second)
	master.Up(t) // rejoins as the new master's replica
	cl.waitReplicasSynced(t, 3, 30*time.Second)
	joined := time.Now()
	// The storm goes on until the sale sells again with a replica.
	storm.WaitEvent(t, time.Minute, joined, "202")
	close(sold)
	t.Logf("injected: replica %s frozen and cut off after %d requests; the master sold alone for %v, "+
		"was killed -9; %s took over %v later; the old master was back as its replica %v after the kill",
		replica.Addr, cutAfter, killed.Sub(cut).Round(time.Millisecond), promoted.Addr, took.Round(time.Millisecond),
		joined.Sub(killed).Round(time.Millisecond))

	res := storm.Wait()
	logStorm(t, cfg, res)
	end := joined.Add(time.Hour)
	t.Logf("while cut off: %d × 202, %d × 503 replication_timeout; until a replica joined: %d × 202, %d × 503 replication_timeout, "+
		"%d × 503 unavailable; after: %d × 202, %d × 503 replication_timeout",
		res.CountIn(cut, killed, "202"), res.CountIn(cut, killed, "503 replication_timeout"),
		res.CountIn(killed, joined, "202"), res.CountIn(killed, joined, "503 replication_timeout"),
		res.CountIn(killed, joined, "503 unavailable"),
		res.CountIn(joined, end, "202"), res.CountIn(joined, end, "503 replication_timeout"))
	refusedWhileCutOff(t, res, cut, killed)
	if res.CountIn(joined, end, "202") == 0 {
		t.Errorf("the sale sold nothing once the new master had a replica")
	}
	ready(t, srv.API)
	reconcile(t, srv.API)
	Verify(t, db, srv.API, id, res)
}

// dropReplicas closes the primary at addr's links to its replicas: what it
// writes after this reaches none of them.
func dropReplicas(t testing.TB, addr string) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	if err := c.Do(context.Background(), "client", "kill", "type", "replica").Err(); err != nil {
		t.Fatalf("CLIENT KILL TYPE replica on %s: %v", addr, err)
	}
}
