package redisconn_test

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/testenv"
)

// A node that no longer serves a key (a primary demoted to replica before
// the cluster's slot map caught up) is a store to retry, not a bug.
func TestReadOnlyReplicaIsUnavailable(t *testing.T) {
	primary := testenv.PrivateRedis(t)
	host, port, _ := strings.Cut(primary, ":")
	replica := redis.NewClient(&redis.Options{Addr: testenv.PrivateRedis(t, "--replicaof", host, port)})
	defer replica.Close()
	err := replica.Set(context.Background(), "k", "v", 0).Err()
	if err == nil || !strings.HasPrefix(err.Error(), "READONLY") {
		t.Fatalf("SET on a replica: %v, want READONLY", err)
	}
	if !redisconn.Unavailable(err) {
		t.Errorf("Unavailable(%v) = false, want true", err)
	}
}
