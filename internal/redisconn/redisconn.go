// Package redisconn opens the Redis the server runs on: one node, or a Redis
// Cluster, both through go-redis's universal client, so every other package
// takes a redis.UniversalClient and never knows which it has. It also holds
// the few operations that must visit every primary of a cluster (scanning
// keys), which a plain client does in one place.
package redisconn

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrBadAddrs is returned (wrapped) for a cluster address list that does not
// parse.
var ErrBadAddrs = errors.New("redisconn: bad cluster addresses")

// Target says where Redis is: Cluster, when not empty, wins over Addr.
type Target struct {
	Addr    string // one node, host:port
	Cluster string // "host:port,host:port,..." or "redis://[user:pass@]host:port?addr=host:port&addr=..."
}

// IsCluster reports whether the target is a Redis Cluster.
func (t Target) IsCluster() bool { return t.Cluster != "" }

// String names the target for logs; it never shows a password.
func (t Target) String() string {
	if !t.IsCluster() {
		return t.Addr
	}
	o, err := t.Options(0)
	if err != nil {
		return "cluster (unparsable addresses)"
	}
	return "cluster " + strings.Join(o.Addrs, ",")
}

// Options returns the universal client's options; poolSize 0 keeps go-redis's
// default. It returns ErrBadAddrs for a cluster list that does not parse.
func (t Target) Options(poolSize int) (*redis.UniversalOptions, error) {
	if !t.IsCluster() {
		return &redis.UniversalOptions{Addrs: []string{t.Addr}, PoolSize: poolSize}, nil
	}
	if strings.Contains(t.Cluster, "://") {
		co, err := redis.ParseClusterURL(t.Cluster)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadAddrs, err)
		}
		return &redis.UniversalOptions{Addrs: co.Addrs, Username: co.Username, Password: co.Password,
			TLSConfig: co.TLSConfig, PoolSize: poolSize, IsClusterMode: true}, nil
	}
	var addrs []string
	for _, a := range strings.Split(t.Cluster, ",") {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		if host, port, ok := strings.Cut(a, ":"); !ok || host == "" || port == "" {
			return nil, fmt.Errorf("%w: %q is not host:port", ErrBadAddrs, a)
		}
		addrs = append(addrs, a)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("%w: no address in %q", ErrBadAddrs, t.Cluster)
	}
	// IsClusterMode: one seed address must still mean a cluster client.
	return &redis.UniversalOptions{Addrs: addrs, PoolSize: poolSize, IsClusterMode: true}, nil
}

// Open connects and pings. On a cluster, the ping also loads the slot map,
// so a cluster that is not ready fails here rather than at the first sale.
func Open(ctx context.Context, t Target, poolSize int) (redis.UniversalClient, error) {
	o, err := t.Options(poolSize)
	if err != nil {
		return nil, err
	}
	rdb := newClient(o)
	if err := rdb.Ping(ctx).Err(); err != nil {
		rdb.Close()
		return nil, fmt.Errorf("connect redis %s: %w", t, err)
	}
	if cc, ok := rdb.(*redis.ClusterClient); ok {
		if err := cc.ForEachShard(ctx, func(ctx context.Context, c *redis.Client) error { return c.Ping(ctx).Err() }); err != nil {
			rdb.Close()
			return nil, fmt.Errorf("connect redis %s: %w", t, err)
		}
	}
	return rdb, nil
}

// StateReload is how often a cluster client re-reads the slot map. go-redis
// re-reads it at once on MOVED, but a master that died answers nothing: with
// go-redis's default of a minute, purchases of its slots kept failing long
// after its replica had taken over (TestClusterFailoverMidStorm). One
// CLUSTER SLOTS a second costs nothing next to a sale.
const StateReload = time.Second

// newClient is redis.NewUniversalClient with StateReload for clusters, which
// the universal options cannot carry.
func newClient(o *redis.UniversalOptions) redis.UniversalClient {
	if !o.IsClusterMode {
		return redis.NewUniversalClient(o)
	}
	co := o.Cluster()
	co.ClusterStateReloadInterval = StateReload
	return redis.NewClusterClient(co)
}

// ForEachPrimary runs fn on the one node, or on every primary of a cluster
// (concurrently), and returns the first error.
func ForEachPrimary(ctx context.Context, rdb redis.UniversalClient, fn func(ctx context.Context, c *redis.Client) error) error {
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		return c.ForEachMaster(ctx, fn)
	case *redis.Client:
		return fn(ctx, c)
	default:
		return fmt.Errorf("redisconn: unsupported client %T", rdb)
	}
}

// DeletePrefix deletes every key that starts with prefix + ":", on every
// primary: what tests and benchmarks clean up after themselves.
func DeletePrefix(ctx context.Context, rdb redis.UniversalClient, prefix string) error {
	return ForEachPrimary(ctx, rdb, func(ctx context.Context, c *redis.Client) error {
		iter := c.Scan(ctx, 0, prefix+":*", 1000).Iterator()
		for iter.Next(ctx) {
			// One key per DEL: on a cluster a multi-key DEL must stay in one slot.
			if err := c.Del(ctx, iter.Val()).Err(); err != nil {
				return err
			}
		}
		return iter.Err()
	})
}
