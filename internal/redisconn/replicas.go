package redisconn

import (
	"context"
	"errors"
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
		n, err := ConnectedReplicas(ctx, c)
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

// Infoer is what ConnectedReplicas asks: a client or one connection of it.
type Infoer interface {
	Info(ctx context.Context, section ...string) *redis.StringCmd
}

// ConnectedReplicas is the connected_slaves of the node c talks to.
func ConnectedReplicas(ctx context.Context, c Infoer) (int, error) {
	info, err := c.Info(ctx, "replication").Result()
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "connected_slaves:"); ok {
			return strconv.Atoi(v)
		}
	}
	return 0, errors.New("INFO replication has no connected_slaves")
}

// InSyncReplicas counts the replicas of the node c talks to that are online
// and acknowledged within the last second (INFO replication's slaveN
// lines): a stalled replica stays among connected_slaves until
// repl-timeout, but its lag grows.
func InSyncReplicas(ctx context.Context, c Infoer) (int, error) {
	info, err := c.Info(ctx, "replication").Result()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, line := range strings.Split(info, "\n") {
		name, fields, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "slave") || name == "slave_read_only" {
			continue
		}
		online, lag := false, -1
		for _, f := range strings.Split(fields, ",") {
			k, v, _ := strings.Cut(f, "=")
			switch k {
			case "state":
				online = v == "online"
			case "lag":
				lag, _ = strconv.Atoi(v)
			}
		}
		if online && lag >= 0 && lag <= 1 {
			n++
		}
	}
	return n, nil
}
