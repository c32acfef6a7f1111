package redisconn

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// Replicas returns the fewest replicas any primary has connected now: what
// every sale can count on, whichever primary holds it. It reads INFO
// replication's connected_slaves on the one node, or on every master of a
// cluster.
func Replicas(ctx context.Context, rdb redis.UniversalClient) (int, error) {
	var mu sync.Mutex
	fewest := -1
	err := ForEachPrimary(ctx, rdb, func(ctx context.Context, c *redis.Client) error {
		n, err := connectedReplicas(ctx, c)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		if fewest < 0 || n < fewest {
			fewest = n
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("count redis replicas: %w", err)
	}
	return max(fewest, 0), nil
}

func connectedReplicas(ctx context.Context, c *redis.Client) (int, error) {
	info, err := c.Info(ctx, "replication").Result()
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "connected_slaves:"); ok {
			return strconv.Atoi(v)
		}
	}
	return 0, fmt.Errorf("%s: INFO replication has no connected_slaves", c.Options().Addr)
}
