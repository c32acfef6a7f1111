package app_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/testenv"
)

// A draw winner whose purchase was answered 503 replication_timeout (the
// primary took it, no replica has it) is not shown the order in the entry
// view either: a failover could take it back. Once the replica has it, the
// view shows it.
func TestDrawEntryShowsOnlyReplicatedPurchase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	primaryAddr, primary, replica := primaryWithReplica(t)
	host, port, _ := strings.Cut(primaryAddr, ":")

	clk := newClock(t0)
	s := start(t, clk, on(redisconn.Target{Addr: primaryAddr}), func(c *config.Config) {
		c.MinReplicas, c.ReplicaTimeout = 1, 50*time.Millisecond
	})
	created := s.call(t, "POST", "/api/v1/admin/items", adminToken, drawBody(t0, size("EU 41", 1)))
	if created.status != 201 {
		t.Fatalf("create draw: %s", created.raw)
	}
	id, v := int64(num(created.body, "id")), variantIDs(t, created)["EU 41"]
	path := "/api/v1/items/" + itoa(id)
	alice := s.login(t, "alice")
	if r := s.enter(t, id, alice, v); r.status != 200 {
		t.Fatalf("enter: %d %s", r.status, r.raw)
	}
	clk.Add(10 * time.Minute)
	testenv.WaitFor(t, 10*time.Second, func() bool { return s.draw(t, id).Phase == "drawn" }, "the draw never ran")
	offer := s.call(t, "GET", path+"/entry", alice, nil)
	if offer.str("result") != "won" {
		t.Fatalf("entry after the draw: %s", offer.raw)
	}

	if err := replica.SlaveOf(ctx, "NO", "ONE").Err(); err != nil {
		t.Fatal(err)
	}
	waitReplicas(t, primary, 0)
	r := s.call(t, "POST", path+"/purchase", alice, map[string]any{"variant_id": v, "quantity": 1},
		"X-Purchase-Token", offer.str("purchase_token"), "Idempotency-Key", "alice-1")
	check(t, r, want{503, "replication_timeout", ""})
	if e := s.call(t, "GET", path+"/entry", alice, nil); e.body["order_id"] != nil || e.str("offer_state") == "bought" {
		t.Fatalf("entry after a purchase no replica has: %s; want no order", e.raw)
	}

	if err := replica.SlaveOf(ctx, host, port).Err(); err != nil {
		t.Fatal(err)
	}
	waitReplicas(t, primary, 1)
	testenv.WaitFor(t, 10*time.Second, func() bool {
		return s.call(t, "GET", path+"/entry", alice, nil).body["order_id"] != nil
	}, "the entry never showed the order once the replica had it")
}
