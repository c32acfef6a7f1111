package ops

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// seckill_dependency_up follows the background readiness check: Redis
// cut off reads 0 within a few seconds, MySQL still 1.
func TestDependencyUpFollowsRedis(t *testing.T) {
	t.Parallel()
	p := e2etest.NewProxy(t, testenv.RedisAddr(t))
	_, prefix := testenv.Redis(t)
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0), e2etest.On(redisconn.Target{Addr: p.Addr()}), func(c *config.Config) { c.RedisPrefix = prefix })
	up := `seckill_dependency_up{dependency="redis"}`
	if v := e2etest.Series(t, s, up); v != 1 {
		t.Fatalf("%s = %v with Redis up, want 1", up, v)
	}
	p.Close()
	testenv.WaitFor(t, 10*time.Second, func() bool { return e2etest.Series(t, s, up) == 0 }, "%s stayed 1 with Redis cut off", up)
	if v := e2etest.Series(t, s, `seckill_dependency_up{dependency="mysql"}`); v != 1 {
		t.Fatalf("mysql up = %v, want 1", v)
	}
}

// A sale whose Redis stock drifted is counted once the reconcile job finds
// it; an entry the persisters cannot store is counted as their failure and
// shows as the oldest order not yet in MySQL.
func TestDriftAndPendingAgeAreExported(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0), func(c *config.Config) { c.ReconcileEvery = 100 * time.Millisecond })
	id := s.Sale(t, 10, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	rdb := redis.NewClient(&redis.Options{Addr: s.Cfg.Redis.Addr})
	defer rdb.Close()
	ctx := context.Background()
	item := keyspace.New(s.Cfg.RedisPrefix).Item(id)
	variant := rdb.HKeys(ctx, item.VariantStock()).Val()
	if len(variant) != 1 {
		t.Fatalf("sale has variants %v in redis, want one", variant)
	}
	rdb.HSet(ctx, item.VariantStock(), variant[0], 42)
	rdb.Set(ctx, item.Stock(), 42, 0)
	testenv.WaitFor(t, 10*time.Second, func() bool { return e2etest.Series(t, s, "seckill_reconcile_drift_total") >= 1 },
		"reconcile never counted the drifted sale")

	if v := e2etest.Series(t, s, "seckill_stream_oldest_pending_seconds"); v != 0 {
		t.Fatalf("oldest pending age with nothing pending = %v, want 0", v)
	}
	// A malformed entry Redis took a minute ago: the persisters cannot
	// store it and leave it in the stream for a person, so it stays the
	// oldest order not in MySQL, and its failure is counted.
	minuteAgo := strconv.FormatInt(time.Now().Add(-time.Minute).UnixMilli(), 10) + "-0"
	if err := rdb.XAdd(ctx, &redis.XAddArgs{Stream: item.Stream(), ID: minuteAgo, Values: []string{"junk", "1"}}).Err(); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, 10*time.Second, func() bool {
		return e2etest.Series(t, s, `seckill_persister_errors_total{stage="malformed"}`) >= 1
	}, "the malformed entry was never counted")
	if v := e2etest.Series(t, s, "seckill_stream_oldest_pending_seconds"); v < 59 || v > 120 {
		t.Errorf("oldest pending age = %v, want about 60 s", v)
	}
	if v := e2etest.Series(t, s, "seckill_stream_pending_orders"); v != 1 {
		t.Errorf("pending orders = %v, want 1", v)
	}
}
