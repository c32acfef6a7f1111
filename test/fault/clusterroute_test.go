package fault

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/harness"
)

// TestClusterFailoverFollowedByPurchases: a graceful failover (CLUSTER
// FAILOVER on the replica of the sale's master) demotes the master while
// the server's slot map still names it. Purchases sent at once reach it,
// are refused READONLY or MOVED without running the script, and go to the
// new master: every answer is a 202 or a 503, never a 500.
func TestClusterFailoverFollowedByPurchases(t *testing.T) {
	s := NewSetup(t, env)
	cl := StartCluster(t, env.ProcEnv, s.Dir, 3, 1, time.Second)
	srv := StartServer(t, s, "server", cl.Target)
	rdb := redisClient(t, cl.Target)
	id := createSale(t, srv.API, 500, 1)
	variant := saleVariants(t, srv.URL, id)[0]
	buy := func(user string) harness.Reply {
		tok, err := MintToken(s.JWTSecret, user)
		if err != nil {
			t.Fatal(err)
		}
		r, err := srv.API.Do(context.Background(), "POST", "/api/v1/items/"+strconv.FormatInt(id, 10)+"/purchase", tok,
			purchaseBody(variant, 1))
		if err != nil {
			t.Fatalf("purchase by %s: %v", user, err)
		}
		return r
	}
	if r := buy("before"); r.Status != 202 {
		t.Fatalf("purchase before the failover: %d %s", r.Status, r.Code())
	}

	master := cl.MasterOf(t, rdb, StreamKey(s.Prefix, id))
	replica := cl.ReplicasOf(master)[0]
	c := redis.NewClient(&redis.Options{Addr: replica.Addr})
	defer c.Close()
	if err := c.Do(context.Background(), "cluster", "failover").Err(); err != nil {
		t.Fatal(err)
	}
	if err := poll(30*time.Second, 5*time.Millisecond, func() error {
		if master.Role() != "slave" {
			return &clusterStateError{master.Addr}
		}
		return nil
	}); err != nil {
		t.Fatalf("the master was never demoted: %v", err)
	}

	var wg sync.WaitGroup
	statuses := make([]int, 40)
	for i := range statuses {
		wg.Go(func() { statuses[i] = buy("after-" + strconv.Itoa(i)).Status })
	}
	wg.Wait()
	counts := map[int]int{}
	for _, st := range statuses {
		counts[st]++
	}
	t.Logf("purchases right after the failover: %v", counts)
	if counts[500] > 0 || counts[202]+counts[503] != len(statuses) {
		t.Errorf("answers right after the failover: %v; want only 202 and 503", counts)
	}
}
