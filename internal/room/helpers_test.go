package room_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/room"
	"github.com/seckill/seckill/internal/testenv"
)

// t0 is every test sale's opening; the sale ends an hour later.
var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

const itemID = 1

// sale is one test's room with its sale in Redis.
type sale struct {
	store *room.Store
	rdb   redis.UniversalClient
	space keyspace.Space
	keys  keyspace.Item
	rules room.Rules
}

// newSale puts a sale with stock units and a per-shopper limit into a fresh
// key prefix of the test Redis.
func newSale(tb testing.TB, stock int64, limit int, r room.Rules) *sale {
	tb.Helper()
	rdb, prefix := testenv.Redis(tb)
	return openSale(tb, rdb, keyspace.New(prefix), stock, limit, r)
}

// openSale writes the sale's stock and meta as the stock package's warm
// would. It takes any client, so the same tests can run on Redis Cluster.
func openSale(tb testing.TB, rdb redis.UniversalClient, keys keyspace.Space, stock int64, limit int, r room.Rules) *sale {
	tb.Helper()
	k := keys.Item(itemID)
	ctx := context.Background()
	err := rdb.HSet(ctx, k.Meta(), "starts_ms", t0.UnixMilli(), "ends_ms", t0.Add(time.Hour).UnixMilli(), "limit", limit).Err()
	if err != nil {
		tb.Fatalf("write meta: %v", err)
	}
	if err := rdb.Set(ctx, k.Stock(), stock, 0).Err(); err != nil {
		tb.Fatalf("write stock: %v", err)
	}
	return &sale{store: room.New(rdb, keys), rdb: rdb, space: keys, keys: k, rules: r}
}

func (s *sale) join(tb testing.TB, user string, at time.Time) room.Standing {
	tb.Helper()
	return s.standing(tb, "join", s.store.Join, user, at)
}

func (s *sale) look(tb testing.TB, user string, at time.Time) room.Standing {
	tb.Helper()
	return s.standing(tb, "look", s.store.Look, user, at)
}

// standing is user's standing as op (Join or Look) answers it at at.
func (s *sale) standing(tb testing.TB, name string,
	op func(context.Context, int64, string, time.Time, room.Rules) (room.Standing, error), user string, at time.Time) room.Standing {
	tb.Helper()
	st, err := op(context.Background(), itemID, user, at, s.rules)
	if err != nil {
		tb.Fatalf("%s %s at %v: %v", name, user, at.Sub(t0), err)
	}
	return st
}

func (s *sale) tick(tb testing.TB, at time.Time) room.Standing {
	tb.Helper()
	st, err := s.store.Tick(context.Background(), itemID, at, s.rules)
	if err != nil {
		tb.Fatalf("tick at %v: %v", at.Sub(t0), err)
	}
	return st
}

func (s *sale) setStock(tb testing.TB, n int64) {
	tb.Helper()
	if err := s.rdb.Set(context.Background(), s.keys.Stock(), n, 0).Err(); err != nil {
		tb.Fatalf("set stock: %v", err)
	}
}

// joinEarly joins n shoppers named prefix0000... one millisecond apart,
// ending a minute before the opening, and returns their names in join order.
func (s *sale) joinEarly(tb testing.TB, prefix string, n int) []string {
	tb.Helper()
	users := names(prefix, n)
	start := t0.Add(-time.Minute - time.Duration(n)*time.Millisecond)
	for i, u := range users {
		st := s.join(tb, u, start.Add(time.Duration(i)*time.Millisecond))
		if !st.Joined || st.Position != -1 || st.Opened {
			tb.Fatalf("early join of %s: %+v, want joined, position -1, not opened", u, st)
		}
	}
	return users
}

// checkHead asserts what every shopper would see at at: the room admitted
// exactly the first n places of the queue.
func (s *sale) checkHead(tb testing.TB, users []string, at time.Time, n int64) {
	tb.Helper()
	for _, u := range users {
		st := s.look(tb, u, at)
		if st.Admitted != n {
			tb.Fatalf("look %s at %v: %d admitted, want %d", u, at.Sub(t0), st.Admitted, n)
		}
		if st.IsAdmitted() && (st.AdmittedAt.Before(t0) || st.AdmittedAt.After(at)) {
			tb.Fatalf("look %s at %v: admitted at %v, outside the sale so far", u, at.Sub(t0), st.AdmittedAt.Sub(t0))
		}
		if st.IsAdmitted() != (st.Position < n) {
			tb.Fatalf("look %s at %v: position %d, admitted %v, with the first %d admitted",
				u, at.Sub(t0), st.Position, st.IsAdmitted(), n)
		}
	}
}

func names(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%04d", prefix, i)
	}
	return out
}

// clock is a time every goroutine of a test reads and moves forward.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	return c.t
}

func (c *clock) now() time.Time { return c.advance(0) }

func TestRoomKeysShareTheSaleSlot(t *testing.T) {
	t.Parallel()
	k := keyspace.New("p").Item(42)
	keys := k.RoomKeys()
	if len(keys) != 8 || keys[0] != k.Stock() || keys[1] != k.Meta() {
		t.Fatalf("RoomKeys = %v, want stock and meta first, 8 keys", keys)
	}
	seen := map[string]bool{}
	for _, key := range keys {
		if strings.Count(key, "{") != 1 || !strings.HasPrefix(key, "p:{item:42}:") || seen[key] {
			t.Errorf("key %q: want one {item:42} tag after the prefix, unique", key)
		}
		seen[key] = true
	}
}
