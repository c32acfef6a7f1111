package app_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/testenv"
)

// A server on a primary with a replica finds the replica by itself
// (SECKILL_REDIS_MIN_REPLICAS unset) and answers a purchase 202 only once
// the replica has it: with the replica cut off, a new purchase and the
// replay of an acknowledged one are 503 replication_timeout with
// Retry-After, and the replay is 202 again once the replica is back.
func TestPurchaseWaitsForReplica(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	primaryAddr, primary, replica := primaryWithReplica(t)
	host, port, _ := strings.Cut(primaryAddr, ":")

	clk := newClock(t0)
	s := start(t, clk, on(redisconn.Target{Addr: primaryAddr}), func(c *config.Config) {
		c.MinReplicas, c.ReplicaTimeout = config.AutoReplicas, 50*time.Millisecond
	})
	id := s.sale(t, 5, 1, t0, t0.Add(time.Hour))
	buy := "/api/v1/items/" + itoa(id) + "/purchase"
	alice, bob := s.login(t, "alice"), s.login(t, "bob")
	first := s.call(t, "POST", buy, alice, nil, "Idempotency-Key", "a-1")
	check(t, first, want{202, "", ""})

	if err := replica.SlaveOf(ctx, "NO", "ONE").Err(); err != nil {
		t.Fatal(err)
	}
	waitReplicas(t, primary, 0)
	for name, r := range map[string]reply{
		"replay": s.call(t, "POST", buy, alice, nil, "Idempotency-Key", "a-1"),
		"new":    s.call(t, "POST", buy, bob, nil, "Idempotency-Key", "b-1"),
	} {
		check(t, r, want{503, "replication_timeout", ""})
		if r.header.Get("Retry-After") != "1" {
			t.Errorf("%s: Retry-After = %q, want 1", name, r.header.Get("Retry-After"))
		}
	}

	if err := replica.SlaveOf(ctx, host, port).Err(); err != nil {
		t.Fatal(err)
	}
	waitReplicas(t, primary, 1)
	again := s.call(t, "POST", buy, alice, nil, "Idempotency-Key", "a-1")
	check(t, again, want{202, "", ""})
	if again.str("order_id") != first.str("order_id") || again.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay once the replica is back = %s, want order %s replayed", again.raw, first.str("order_id"))
	}
}

// waitReplicas waits until primary has n replicas, and with n > 0 until a
// write on it reaches them (after a resync a primary streams to a replica
// only once it has acknowledged).
func waitReplicas(t testing.TB, primary *redis.Client, n int) {
	t.Helper()
	ctx := context.Background()
	testenv.WaitFor(t, 10*time.Second, func() bool {
		got, err := redisconn.Replicas(ctx, primary)
		if err != nil || got != n {
			return false
		}
		if n == 0 {
			return true
		}
		c := primary.Conn()
		defer c.Close()
		if err := c.Set(ctx, "probe", "1", 0).Err(); err != nil {
			return false
		}
		acked, err := c.Wait(ctx, n, 100*time.Millisecond).Result()
		return err == nil && acked >= int64(n)
	}, "primary never had %d replicas in sync", n)
}

// An explicit SECKILL_REDIS_MIN_REPLICAS above the replicas the primary has
// would have every purchase answer 503: the server says so at start.
func TestReplicaMinimumAboveReplicasWarns(t *testing.T) {
	t.Parallel()
	var logs lockedBuffer
	primaryAddr := testenv.PrivateRedis(t)
	startLogged(t, newClock(t0), slog.New(slog.NewJSONHandler(&logs, nil)), on(redisconn.Target{Addr: primaryAddr}),
		func(c *config.Config) { c.MinReplicas, c.ReplicaTimeout = 1, 50*time.Millisecond })
	if got := logs.String(); !strings.Contains(got, `"msg":"SECKILL_REDIS_MIN_REPLICAS exceeds the replicas`) ||
		!strings.Contains(got, `"fewest_replicas":0`) {
		t.Fatalf("no warning at start:\n%s", got)
	}
}

// primaryWithReplica starts a private Redis primary and a replica of it,
// and returns once the primary counts the replica.
func primaryWithReplica(t *testing.T) (primaryAddr string, primary, replica *redis.Client) {
	t.Helper()
	primaryAddr = testenv.PrivateRedis(t, "--repl-diskless-sync-delay", "0")
	host, port, _ := strings.Cut(primaryAddr, ":")
	replica = redis.NewClient(&redis.Options{Addr: testenv.PrivateRedis(t, "--replicaof", host, port)})
	primary = redis.NewClient(&redis.Options{Addr: primaryAddr})
	t.Cleanup(func() { replica.Close(); primary.Close() })
	waitReplicas(t, primary, 1)
	return primaryAddr, primary, replica
}
