package draw

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// A draw winner whose purchase was answered 503 replication_timeout (the
// primary took it, no replica has it) is not shown the order in the entry
// view either: a failover could take it back. Once the replica has it, the
// view shows it.
func TestDrawEntryShowsOnlyReplicatedPurchase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	primaryAddr, primary, replica := e2etest.PrimaryWithReplica(t)
	host, port, _ := strings.Cut(primaryAddr, ":")

	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk, e2etest.On(redisconn.Target{Addr: primaryAddr}), func(c *config.Config) {
		c.MinReplicas, c.ReplicaTimeout = 1, 50*time.Millisecond
	})
	id, sizes := s.CreateDraw(t, e2etest.DrawBody(e2etest.T0, e2etest.Size("EU 41", 1)))
	v := sizes["EU 41"]
	path := "/api/v1/items/" + e2etest.Itoa(id)
	alice := s.Login(t, "alice")
	if r := s.Enter(t, id, alice, v); r.Status != 200 {
		t.Fatalf("enter: %d %s", r.Status, r.Raw)
	}
	clk.Add(10 * time.Minute)
	testenv.WaitFor(t, 10*time.Second, func() bool { return s.Draw(t, id).Phase == "drawn" }, "the draw never ran")
	offer := s.Call(t, "GET", path+"/entry", alice, nil)
	if offer.Str("result") != "won" {
		t.Fatalf("entry after the draw: %s", offer.Raw)
	}

	if err := replica.SlaveOf(ctx, "NO", "ONE").Err(); err != nil {
		t.Fatal(err)
	}
	e2etest.WaitReplicas(t, primary, 0)
	r := s.Call(t, "POST", path+"/purchase", alice, map[string]any{"variant_id": v, "quantity": 1},
		"X-Purchase-Token", offer.Str("purchase_token"), "Idempotency-Key", "alice-1")
	e2etest.Check(t, r, e2etest.Want{Status: 503, Code: "replication_timeout"})
	if e := s.Call(t, "GET", path+"/entry", alice, nil); e.Body["order_id"] != nil || e.Str("offer_state") == "bought" {
		t.Fatalf("entry after a purchase no replica has: %s; want no order", e.Raw)
	}

	if err := replica.SlaveOf(ctx, host, port).Err(); err != nil {
		t.Fatal(err)
	}
	e2etest.WaitReplicas(t, primary, 1)
	testenv.WaitFor(t, 10*time.Second, func() bool {
		return s.Call(t, "GET", path+"/entry", alice, nil).Body["order_id"] != nil
	}, "the entry never showed the order once the replica had it")
}
