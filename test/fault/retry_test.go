package fault

import (
	"testing"
	"time"

	"github.com/seckill/seckill/internal/redisconn"
)

// TestIdempotentRetryAfterTimeout has impatient shoppers: each attempt's
// client timeout is 1–5 ms, so many are abandoned after the server reserved
// stock. Every shopper retries with its one Idempotency-Key until it gets an
// answer: each ends with exactly one order in MySQL, the one its 202 named.
// It runs on a single Redis and on a Redis Cluster.
func TestIdempotentRetryAfterTimeout(t *testing.T) { onEachRedis(t, idempotentRetryAfterTimeout) }

func idempotentRetryAfterTimeout(t *testing.T, red redisconn.Target) {
	const shoppers = 400
	s := NewSetup(t, env)
	srv := StartServer(t, s, "server", red)
	db := s.OpenDB(t)
	id := createSale(t, srv.API, shoppers, 1)
	cfg := RetryConfig{ItemID: id, Shoppers: shoppers, Workers: 32, MinTimeout: time.Millisecond,
		MaxTimeout: 5 * time.Millisecond, Eager: 6, Secret: s.JWTSecret, Seed: 4}

	res := RetryUntilAnswered(t, srv.URL, cfg)
	t.Logf("storm: %d shoppers, %d attempts in %v (client timeout %v–%v for the first %d attempts, then doubling): %s",
		shoppers, res.Requests, res.Elapsed.Round(time.Millisecond), cfg.MinTimeout, cfg.MaxTimeout, cfg.Eager, res.Summary())
	t.Logf("injected: %d attempts abandoned by the client (timeouts); the most attempts one shopper needed: %d; "+
		"%d final answers were replays of a reservation made for an abandoned attempt",
		res.TimedOut, res.MaxAttempts, res.Outcomes["202 replayed"])
	if len(res.GaveUp) > 0 {
		t.Errorf("%d shoppers never got an answer in 100 attempts: %v", len(res.GaveUp), res.GaveUp)
	}
	if u := res.Unexpected(); len(u) > 0 {
		t.Errorf("unexpected outcomes: %v", u)
	}
	if res.TimedOut == 0 {
		t.Errorf("no attempt timed out: the test injected nothing")
	}
	rep := Verify(t, db, srv.API, id, res.Result)
	if len(res.Acked) != shoppers || rep.Rows != shoppers || rep.Unacked != 0 {
		t.Errorf("want each of %d shoppers to hold one acknowledged order in MySQL: %d got a 202, MySQL holds %d (%d never acknowledged)",
			shoppers, len(res.Acked), rep.Rows, rep.Unacked)
	}
}
