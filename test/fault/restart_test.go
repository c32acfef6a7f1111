package fault

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/redisconn"
)

// TestKill9RestartTakesBackItsOwn kill -9s the only server mid-sale while
// its workers hold entries they read and had not acknowledged, and restarts
// the same instance (same host and port) a second later, with
// SECKILL_CLAIM_IDLE at its 30 s default. Every order queued in Redis at the
// kill is in MySQL within 5 s of the restart: the new process persists what
// its previous run held at once instead of waiting for the idle claim. The
// storm's invariants hold (none lost or doubled, stock consistent). It runs
// on a single Redis and on a Redis Cluster.
func TestKill9RestartTakesBackItsOwn(t *testing.T) { onEachRedis(t, kill9RestartTakesBackItsOwn) }

func kill9RestartTakesBackItsOwn(t *testing.T, red redisconn.Target) {
	const within = 5 * time.Second
	s := NewSetup(t, env)
	s.ClaimIdle = 30 * time.Second // the default: nobody else takes the dead run's entries before that
	srv, db, rdb, id, stream, cfg, storm := stormOn(t, s, 4, red)

	storm.WaitDone(t, cfg.Requests/3)
	dead := srv.Pid()
	held := KillWhenHolding(t, rdb, stream, srv, 5*time.Second)
	if held == 0 {
		t.Fatalf("the server held no unacknowledged entries when killed: the scene did not happen")
	}
	queued := queuedOrders(t, rdb, stream)
	awaitIdle(t, rdb, stream, srv.Instance(), time.Second)
	restarted := time.Now()
	up := srv.Up(t)
	took, stillOut := timeToPersist(db, queued, restarted, 45*time.Second)
	t.Logf("injected: kill -9 of %s (pid %d) after %d requests, its workers holding %d unacknowledged entries, %d orders "+
		"queued; restarted a second later (up in %v): all of them in MySQL %v after the restart",
		srv.Instance(), dead, storm.Done(), held, len(queued), up.Round(time.Millisecond), took.Round(time.Millisecond))
	switch {
	case stillOut > 0:
		t.Errorf("%d of the %d orders queued at the kill were still not in MySQL %v after the restart, want all within %v",
			stillOut, len(queued), took.Round(time.Millisecond), within)
	case took > within:
		t.Errorf("the %d orders queued at the kill were all in MySQL only %v after the restart, want within %v",
			len(queued), took.Round(time.Millisecond), within)
	}

	res := storm.Wait()
	logStorm(t, cfg, res)
	Verify(t, db, srv.API, id, res)
	noneHeldBy(t, rdb, stream, srv.Instance())
}

// queuedOrders lists the order ids of every entry in stream: orders Redis
// took and MySQL may not have yet (an entry leaves the stream once written).
func queuedOrders(t testing.TB, rdb redis.UniversalClient, stream string) []string {
	t.Helper()
	msgs, err := rdb.XRange(context.Background(), stream, "-", "+").Result()
	if err != nil {
		t.Fatalf("XRANGE %s: %v", stream, err)
	}
	ids := make([]string, 0, len(msgs))
	for _, m := range msgs {
		e, err := keyspace.ParseEntry(m.ID, m.Values)
		if err != nil {
			t.Fatalf("entry %s: %v", m.ID, err)
		}
		ids = append(ids, e.OrderID)
	}
	return ids
}

// awaitIdle waits until every entry instance's consumers hold has been idle
// for at least d: they were read just before the kill, so this is the
// kill plus d, read off Redis's own clock.
func awaitIdle(t testing.TB, rdb redis.UniversalClient, stream, instance string, d time.Duration) {
	t.Helper()
	err := poll(10*time.Second, 20*time.Millisecond, func() error {
		res, err := rdb.XPendingExt(context.Background(), &redis.XPendingExtArgs{
			Stream: stream, Group: keyspace.Group, Start: "-", End: "+", Count: 10_000}).Result()
		if err != nil {
			return err
		}
		for _, p := range res {
			if consumerOf(p.Consumer, instance) && p.Idle < d {
				return fmt.Errorf("entry %s idle only %v", p.ID, p.Idle)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// timeToPersist polls MySQL until it holds every order in ids, up to limit,
// and returns how long after since that was and how many it still lacked
// at the end.
func timeToPersist(db *sql.DB, ids []string, since time.Time, limit time.Duration) (time.Duration, int) {
	missing := len(ids)
	poll(limit, 50*time.Millisecond, func() error {
		n, err := countOrders(db, ids)
		if err != nil {
			return err
		}
		if missing = len(ids) - n; missing > 0 {
			return fmt.Errorf("%d orders not in MySQL", missing)
		}
		return nil
	})
	return time.Since(since), missing
}

func countOrders(db *sql.DB, ids []string) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	q := "SELECT COUNT(*) FROM orders WHERE id IN (?" + strings.Repeat(",?", len(ids)-1) + ")"
	var n int
	err := db.QueryRowContext(ctx, q, args...).Scan(&n)
	return n, err
}
