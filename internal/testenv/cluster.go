package testenv

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/redisconn"
)

const clusterHowTo = "run `make test` (it starts a local 3-master Redis Cluster), or run " +
	"`scripts/redis-cluster.sh start` and set SECKILL_TEST_REDIS_CLUSTER to the addresses it prints"

// Target is a Redis that tests which must hold on a single Redis and on a
// Redis Cluster alike run against, one subtest each.
type Target struct {
	Name  string // "single" or "cluster": the subtest's name
	Redis redisconn.Target
}

// RedisTargets returns the single test Redis and the test Redis Cluster.
// It fails the test if either is missing: CI must run both.
func RedisTargets(tb testing.TB) []Target {
	tb.Helper()
	return []Target{
		{Name: "single", Redis: redisconn.Target{Addr: RedisAddr(tb)}},
		{Name: "cluster", Redis: Cluster(tb)},
	}
}

// Cluster is the test Redis Cluster named by SECKILL_TEST_REDIS_CLUSTER
// (seed addresses, comma-separated). It fails the test, saying how to start
// one, if the variable is unset or the cluster does not answer.
func Cluster(tb testing.TB) redisconn.Target {
	tb.Helper()
	addrs := lookupEnv("SECKILL_TEST_REDIS_CLUSTER")
	if addrs == "" {
		tb.Fatalf("testenv: no Redis Cluster for tests: SECKILL_TEST_REDIS_CLUSTER is unset; %s", clusterHowTo)
	}
	t := redisconn.Target{Cluster: addrs}
	rdb, err := redisconn.Open(context.Background(), t, 0)
	if err != nil {
		tb.Fatalf("testenv: Redis Cluster %s does not answer: %v; %s", addrs, err, clusterHowTo)
	}
	rdb.Close()
	return t
}

// RedisOn returns a client of t and a key prefix of this test's own; cleanup
// deletes every key under the prefix, on every primary of a cluster.
func RedisOn(tb testing.TB, t redisconn.Target) (redis.UniversalClient, string) {
	tb.Helper()
	ctx := context.Background()
	rdb, err := redisconn.Open(ctx, t, 0)
	if err != nil {
		tb.Fatalf("testenv: redis %s does not answer: %v (%s)", t, err, howTo)
	}
	prefix := "seckilltest:" + randomHex(tb, 6)
	tb.Cleanup(func() {
		redisconn.DeletePrefix(ctx, rdb, prefix)
		rdb.Close()
	})
	return rdb, prefix
}

// CountKeys counts the keys matching pattern on every primary of rdb (one
// Redis, or each master of a cluster).
func CountKeys(tb testing.TB, rdb redis.UniversalClient, pattern string) int {
	tb.Helper()
	var n atomic.Int64
	err := redisconn.ForEachPrimary(context.Background(), rdb, func(ctx context.Context, c *redis.Client) error {
		iter := c.Scan(ctx, 0, pattern, 1000).Iterator()
		for iter.Next(ctx) {
			n.Add(1)
		}
		return iter.Err()
	})
	if err != nil {
		tb.Fatal(err)
	}
	return int(n.Load())
}
