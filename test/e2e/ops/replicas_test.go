package ops

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// A server on a primary with a replica finds the replica by itself
// (SECKILL_REDIS_MIN_REPLICAS unset) and answers a purchase 202 only once
// the replica has it: with the replica cut off, a new purchase and the
// replay of an acknowledged one are 503 replication_timeout with
// Retry-After, and the replay is 202 again once the replica is back.
func TestPurchaseWaitsForReplica(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	primaryAddr, primary, replica := e2etest.PrimaryWithReplica(t)
	host, port, _ := strings.Cut(primaryAddr, ":")

	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk, e2etest.On(redisconn.Target{Addr: primaryAddr}), func(c *config.Config) {
		c.MinReplicas, c.ReplicaTimeout = config.AutoReplicas, 50*time.Millisecond
	})
	id := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	buy := "/api/v1/items/" + e2etest.Itoa(id) + "/purchase"
	alice, bob := s.Login(t, "alice"), s.Login(t, "bob")
	first := s.Call(t, "POST", buy, alice, nil, "Idempotency-Key", "a-1")
	e2etest.Check(t, first, e2etest.Want{Status: 202})

	if err := replica.SlaveOf(ctx, "NO", "ONE").Err(); err != nil {
		t.Fatal(err)
	}
	e2etest.WaitReplicas(t, primary, 0)
	for name, r := range map[string]e2etest.Reply{
		"replay": s.Call(t, "POST", buy, alice, nil, "Idempotency-Key", "a-1"),
		"new":    s.Call(t, "POST", buy, bob, nil, "Idempotency-Key", "b-1"),
	} {
		e2etest.Check(t, r, e2etest.Want{Status: 503, Code: "replication_timeout"})
		if r.Header.Get("Retry-After") != "1" {
			t.Errorf("%s: Retry-After = %q, want 1", name, r.Header.Get("Retry-After"))
		}
	}

	if err := replica.SlaveOf(ctx, host, port).Err(); err != nil {
		t.Fatal(err)
	}
	e2etest.WaitReplicas(t, primary, 1)
	again := s.Call(t, "POST", buy, alice, nil, "Idempotency-Key", "a-1")
	e2etest.Check(t, again, e2etest.Want{Status: 202})
	if again.Str("order_id") != first.Str("order_id") || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay once the replica is back = %s, want order %s replayed", again.Raw, first.Str("order_id"))
	}
}

// An explicit SECKILL_REDIS_MIN_REPLICAS above the replicas the primary has
// would have every purchase answer 503: the server says so at start.
func TestReplicaMinimumAboveReplicasWarns(t *testing.T) {
	t.Parallel()
	var logs e2etest.LockedBuffer
	primaryAddr := testenv.PrivateRedis(t)
	e2etest.StartLogged(t, e2etest.NewClock(e2etest.T0), slog.New(slog.NewJSONHandler(&logs, nil)), e2etest.On(redisconn.Target{Addr: primaryAddr}),
		func(c *config.Config) { c.MinReplicas, c.ReplicaTimeout = 1, 50*time.Millisecond })
	if got := logs.String(); !strings.Contains(got, `"msg":"SECKILL_REDIS_MIN_REPLICAS exceeds the replicas`) ||
		!strings.Contains(got, `"fewest_replicas":0`) {
		t.Fatalf("no warning at start:\n%s", got)
	}
}
