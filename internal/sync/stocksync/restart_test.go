package stocksync_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/order"
	"github.com/seckill/seckill/internal/testenv"
)

// TestRestartedWorkerPersistsItsOwnEntries: a worker read orders and died
// (before writing them, after writing them, or after writing and deleting
// them with the XACK lost). Restarted under the same name, with the idle
// claim an hour away, it persists them within seconds, each once. The
// entries another instance holds stay with that instance until the idle
// claim: a restart takes back only its own. (Entries deleted but still
// pending are also dropped by Redis 7's XAUTOCLAIM; the case checks that the
// restart's own walk acknowledges them instead of calling them malformed.)
func TestRestartedWorkerPersistsItsOwnEntries(t *testing.T) {
	t.Parallel()
	for _, died := range []string{"before writing", "after writing", "after deleting"} {
		t.Run(died, func(t *testing.T) {
			ctx := context.Background()
			s := newStack(t)
			it := s.sale(t, 20, 1)
			for i := range 12 {
				if _, err := s.buy(it.ID, "u"+strconv.Itoa(i), 1); err != nil {
					t.Fatal(err)
				}
			}
			self := order.ConsumerName("shop-a:8080", 0)
			mine := s.readAs(t, it.ID, self, 10)
			other := s.readAs(t, it.ID, order.ConsumerName("shop-b:8080", 0), 2)
			stream := s.keys.Item(it.ID).Stream()
			if died != "before writing" {
				if _, err := s.orders.Persist(ctx, mine); err != nil {
					t.Fatal(err)
				}
			}
			if died == "after deleting" {
				for _, e := range mine {
					s.rdb.XDel(ctx, stream, e.StreamID)
				}
			}

			began := time.Now()
			s.worker(t, self, time.Hour, nil)
			testenv.WaitFor(t, 5*time.Second, func() bool {
				return s.pendingOf(t, stream, self) == 0 && s.persisted(t, mine) == len(mine)
			}, "the restarted worker did not persist its own %d entries", len(mine))
			t.Logf("own entries persisted %v after the restart", time.Since(began).Round(time.Millisecond))

			if n := s.pendingOf(t, stream, order.ConsumerName("shop-b:8080", 0)); n != int64(len(other)) {
				t.Errorf("the other instance holds %d entries, want %d: a restart must not take them before the idle claim", n, len(other))
			}
			if active, err := s.orders.Active(ctx, it.ID); err != nil || len(active) != len(mine) {
				t.Errorf("%d active orders in MySQL (%v), want %d: each of its own, once, and none of the other's", len(active), err, len(mine))
			}
		})
	}
}

// TestRestartWithFewerWorkers: an instance ran four workers, died with
// entries held by workers 2 and 3, and comes back with two. Worker j's
// entries go to worker j mod 2 at start, each to exactly one, without
// waiting for the idle claim; another instance's stay where they are.
func TestRestartWithFewerWorkers(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	it := s.sale(t, 20, 1)
	for i := range 9 {
		if _, err := s.buy(it.ID, "u"+strconv.Itoa(i), 1); err != nil {
			t.Fatal(err)
		}
	}
	stream := s.keys.Item(it.ID).Stream()
	held := map[string][]keyspace.Entry{}
	for _, c := range []string{"shop-a:8080/2", "shop-a:8080/3", "shop-a:80/3"} {
		held[c] = s.readAs(t, it.ID, c, 3)
	}
	for i := range 2 {
		s.worker(t, order.ConsumerName("shop-a:8080", i), time.Hour, order.Orphans("shop-a:8080", i, 2))
	}
	testenv.WaitFor(t, 5*time.Second, func() bool {
		return s.pendingOf(t, stream, "shop-a:8080/2")+s.pendingOf(t, stream, "shop-a:8080/3") == 0 &&
			s.persisted(t, held["shop-a:8080/2"])+s.persisted(t, held["shop-a:8080/3"]) == 6
	}, "the entries of the workers that no longer run were not adopted")
	if n := s.pendingOf(t, stream, "shop-a:80/3"); n != 3 {
		t.Errorf("instance shop-a:80 holds %d entries, want its 3: only the instance's own workers are adopted", n)
	}
	if n := s.persisted(t, held["shop-a:80/3"]); n != 0 {
		t.Errorf("%d of another instance's entries persisted before the idle claim", n)
	}
}

// worker runs one persistence worker named consumer, adopting what adopt
// names, until the test ends.
func (s *stack) worker(tb testing.TB, consumer string, claimIdle time.Duration, adopt func(string) bool) {
	tb.Helper()
	p := newPersister(s, consumer, 100)
	p.cfg.ClaimIdle, p.cfg.Adopt = claimIdle, adopt
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { order.NewPersister(s.rdb, s.keys, s.orders, s.syncer, nil, nil, p.cfg, s.log).Run(ctx) })
	tb.Cleanup(func() { cancel(); wg.Wait() })
}

func (s *stack) pendingOf(tb testing.TB, stream, consumer string) int64 {
	tb.Helper()
	res, err := s.rdb.XPending(context.Background(), stream, keyspace.Group).Result()
	if err != nil {
		tb.Fatal(err)
	}
	return res.Consumers[consumer]
}

// persisted counts the entries whose order MySQL holds.
func (s *stack) persisted(tb testing.TB, entries []keyspace.Entry) int {
	tb.Helper()
	n := 0
	for _, e := range entries {
		if _, err := s.orders.Get(context.Background(), e.OrderID); err == nil {
			n++
		}
	}
	return n
}
