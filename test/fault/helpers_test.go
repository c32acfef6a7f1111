package fault

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/harness"
	"github.com/seckill/seckill/internal/redisconn"
)

func redisClient(t testing.TB, red redisconn.Target) redis.UniversalClient {
	t.Helper()
	rdb, err := redisconn.Open(context.Background(), red, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// onEachRedis runs test once on the shared Redis and once on the shared
// Redis Cluster, as subtests "single" and "cluster".
func onEachRedis(t *testing.T, test func(t *testing.T, red redisconn.Target)) {
	for _, r := range env.Redises() {
		t.Run(r.Name, func(t *testing.T) { test(t, r.Redis) })
	}
}

// logStorm logs the storm's size and what the shoppers saw, and fails on
// outcomes no fault explains.
func logStorm(t testing.TB, cfg StormConfig, res Result) {
	t.Helper()
	t.Logf("storm: %d requests by %d shoppers (%d concurrent clients, up to %d units each) in %v: %s",
		res.Requests, cfg.Shoppers, cfg.Workers, max(cfg.MaxQty, 1), res.Elapsed.Round(time.Millisecond), res.Summary())
	if len(res.NoAnswer) > 0 {
		t.Logf("e.g. no answer because: %q", res.NoAnswer)
	}
	if u := res.Unexpected(); len(u) > 0 {
		t.Errorf("unexpected outcomes: %v", u)
	}
	if res.Requests != cfg.Requests {
		t.Errorf("storm recorded %d requests, sent %d", res.Requests, cfg.Requests)
	}
}

// noneHeldBy fails if consumers of instance still hold entries of stream
// 10 s on: a survivor must have reclaimed them, or the instance itself once
// restarted (its consumers keep their names). Entries the dead
// process had already persisted are not "pending" for the stats, so the
// sale can look drained before SECKILL_CLAIM_IDLE lets anyone take them.
func noneHeldBy(t testing.TB, rdb redis.UniversalClient, stream, instance string) {
	t.Helper()
	err := poll(10*time.Second, 100*time.Millisecond, func() error {
		n, err := PendingOf(context.Background(), rdb, stream, instance)
		switch {
		case err != nil:
			return harness.Abort(fmt.Errorf("XPENDING: %w", err))
		case n > 0:
			return fmt.Errorf("the consumers of %s still hold %d entries: nobody reclaimed them", instance, n)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}

// meetOutage waits, after a kill at request killedAfter, until shoppers
// have met the outage: the requests in flight at the kill (at most
// cfg.Workers) and one sent after it have been answered. A count of
// requests, not a time: while Redis is down an answer takes seconds (the
// client's retries), so a fixed second saw only the requests in flight.
func meetOutage(t testing.TB, storm *Storm, cfg StormConfig, killedAfter int) {
	t.Helper()
	storm.WaitDone(t, killedAfter+cfg.Workers+1)
}

// streamLen is how many orders are queued and not yet persisted.
func streamLen(t testing.TB, rdb redis.UniversalClient, stream string) int64 {
	t.Helper()
	n, err := rdb.XLen(context.Background(), stream).Result()
	if err != nil {
		t.Fatalf("XLEN %s: %v", stream, err)
	}
	return n
}

// oneServerStorm starts one server on red with a fresh setup, a drop of
// 1,500 units in 4 sizes (2 per shopper), and a storm of 3,000 requests by 1,200
// shoppers at 1,000 req/s against it: the scene of the kill -9 and SIGTERM
// tests.
func oneServerStorm(t *testing.T, seed uint64, red redisconn.Target) (*Setup, *Server, *sql.DB,
	redis.UniversalClient, int64, string, StormConfig, *Storm) {
	t.Helper()
	s := NewSetup(t, env)
	srv, db, rdb, id, stream, cfg, storm := stormOn(t, s, seed, red)
	return s, srv, db, rdb, id, stream, cfg, storm
}

// stormOn is oneServerStorm on a setup the caller prepared.
func stormOn(t *testing.T, s *Setup, seed uint64, red redisconn.Target) (*Server, *sql.DB,
	redis.UniversalClient, int64, string, StormConfig, *Storm) {
	t.Helper()
	return stormWith(t, s, red, 1500,
		StormConfig{Shoppers: 1200, Requests: 3000, Workers: 32, Rate: 1000, MaxQty: 2, Seed: seed})
}

// stormWith starts one server on red, creates a sale of total units (2 per
// shopper) and starts the storm cfg describes against it, filling in the
// sale and the setup's secret: the opening every single-server storm test
// shares, whatever it injects next.
func stormWith(t *testing.T, s *Setup, red redisconn.Target, total int, cfg StormConfig) (*Server, *sql.DB,
	redis.UniversalClient, int64, string, StormConfig, *Storm) {
	t.Helper()
	srv := StartServer(t, s, "server", red)
	db, rdb := s.OpenDB(t), redisClient(t, red)
	id := createSale(t, srv.API, total, 2)
	cfg.ItemID, cfg.Secret = id, s.JWTSecret
	return srv, db, rdb, id, StreamKey(s.Prefix, id), cfg, StartStorm(t, cfg, NewTargets(srv.URL))
}
