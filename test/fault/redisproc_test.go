package fault

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
)

// Redis is a private redis-server with an append-only file fsynced on every
// write, so a kill -9 loses nothing it acknowledged. A restart reuses the
// port and the directory, so it loads the same AOF.
type Redis struct {
	*Proc
	Addr string
	Dir  string
}

// StartRedis starts a private Redis on a free loopback port, with its data
// in dir, and waits until it answers PING.
func StartRedis(tb testing.TB, env []string, dir string) *Redis {
	tb.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		tb.Fatalf("a private Redis needs redis-server on PATH (apt-get install redis-server): %v", err)
	}
	port := strconv.Itoa(FreePort(tb))
	data := filepath.Join(dir, "redis-data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		tb.Fatal(err)
	}
	r := &Redis{Addr: "127.0.0.1:" + port, Dir: data}
	r.Proc = NewProc(tb, "redis", filepath.Join(dir, "redis.log"), env, bin,
		"--port", port, "--bind", "127.0.0.1", "--dir", data,
		"--appendonly", "yes", "--appendfsync", "always", "--save", "")
	r.Up(tb)
	return r
}

// Up starts Redis (again) and waits until it answers PING; it returns how
// long that took.
func (r *Redis) Up(tb testing.TB) time.Duration {
	tb.Helper()
	return upRedis(tb, r.Proc, r.Addr)
}

// upRedis starts p (again) and waits up to 30s until the redis-server at
// addr answers PING (not LOADING); it returns how long that took.
func upRedis(tb testing.TB, p *Proc, addr string) time.Duration {
	tb.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer rdb.Close()
	return p.Up(tb, 30*time.Second, func(ctx context.Context) error { return rdb.Ping(ctx).Err() })
}

// PendingOf counts the entries of stream that the consumers of instance
// (a server's name in the consumer groups, Server.Instance) have read and
// not acknowledged. Server consumers are named instance/index.
func PendingOf(ctx context.Context, rdb redis.UniversalClient, stream, instance string) (int64, error) {
	res, err := rdb.XPending(ctx, stream, keyspace.Group).Result()
	if err != nil {
		return 0, err
	}
	var n int64
	for name, count := range res.Consumers {
		if consumerOf(name, instance) {
			n += count
		}
	}
	return n, nil
}

// consumerOf tells whether name is one of instance's consumers.
func consumerOf(name, instance string) bool {
	index, ok := strings.CutPrefix(name, instance+"/")
	_, err := strconv.Atoi(index)
	return ok && err == nil
}

// StreamKey is the Redis stream that queues item's orders under prefix.
func StreamKey(prefix string, item int64) string {
	return keyspace.New(prefix).Item(item).Stream()
}

// KillWhenHolding kill -9s victim as soon as its persistence workers hold
// entries of stream they read and did not acknowledge (or after timeout,
// whichever comes first), so the crash leaves work another worker must
// reclaim. It returns how many entries the dead process held.
func KillWhenHolding(tb testing.TB, rdb redis.UniversalClient, stream string, victim *Server, timeout time.Duration) int64 {
	tb.Helper()
	ctx := context.Background()
	instance := victim.Instance()
	// Polled fast: workers ack within milliseconds of reading. After timeout
	// the kill goes ahead anyway, and the caller logs how much it held.
	poll(timeout, 500*time.Microsecond, func() error {
		if n, err := PendingOf(ctx, rdb, stream, instance); err != nil || n == 0 {
			return fmt.Errorf("holds nothing (%v)", err)
		}
		return nil
	})
	victim.Kill9(tb)
	held, err := PendingOf(ctx, rdb, stream, instance)
	if err != nil {
		tb.Fatalf("XPENDING %s: %v", stream, err)
	}
	return held
}
