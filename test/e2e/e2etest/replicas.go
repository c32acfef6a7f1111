package e2etest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/testenv"
)

// WaitReplicas waits until primary has n replicas, and with n > 0 until a
// write on it reaches them (after a resync a primary streams to a replica
// only once it has acknowledged).
func WaitReplicas(t testing.TB, primary *redis.Client, n int) {
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

// PrimaryWithReplica starts a private Redis primary and a replica of it,
// and returns once the primary counts the replica.
func PrimaryWithReplica(t *testing.T) (primaryAddr string, primary, replica *redis.Client) {
	t.Helper()
	primaryAddr = testenv.PrivateRedis(t, "--repl-diskless-sync-delay", "0")
	host, port, _ := strings.Cut(primaryAddr, ":")
	replica = redis.NewClient(&redis.Options{Addr: testenv.PrivateRedis(t, "--replicaof", host, port)})
	primary = redis.NewClient(&redis.Options{Addr: primaryAddr})
	t.Cleanup(func() { replica.Close(); primary.Close() })
	WaitReplicas(t, primary, 1)
	return primaryAddr, primary, replica
}
