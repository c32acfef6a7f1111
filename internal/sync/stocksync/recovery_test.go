package stocksync_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/stock"
	"github.com/seckill/seckill/internal/testenv"
)

// TestCrashedWorkerEntriesAreReclaimed: a worker reads a batch and dies,
// before writing it or after writing it but before XACK. Another worker takes
// the entries over with XAUTOCLAIM and each order ends up in MySQL once.
func TestCrashedWorkerEntriesAreReclaimed(t *testing.T) {
	t.Parallel()
	for _, committed := range []bool{false, true} {
		t.Run("committed="+strconv.FormatBool(committed), func(t *testing.T) {
			s := newStack(t)
			it := s.sale(t, 20, 1)
			for i := range 10 {
				if _, err := s.buy(it.ID, "u"+strconv.Itoa(i), 1); err != nil {
					t.Fatal(err)
				}
			}
			entries := s.readAsCrashedWorker(t, it.ID)
			if len(entries) != 10 {
				t.Fatalf("crashed worker read %d entries, want 10", len(entries))
			}
			if committed {
				if _, err := s.orders.Persist(context.Background(), entries); err != nil {
					t.Fatal(err)
				}
			}
			stop := s.workers(t, 1, 100*time.Millisecond)
			s.drained(t, it.ID)
			stop()
			if active := s.invariants(t, it); len(active) != 10 {
				t.Fatalf("%d orders in MySQL, want 10", len(active))
			}
			pending := s.rdb.XPending(context.Background(), s.keys.Item(it.ID).Stream(), keyspace.Group).Val()
			if pending.Count != 0 {
				t.Fatalf("%d entries still pending", pending.Count)
			}
		})
	}
}

// readAsCrashedWorker reads every entry into the group as a consumer that
// never acknowledges.
func (s *stack) readAsCrashedWorker(tb testing.TB, itemID int64) []keyspace.Entry {
	tb.Helper()
	return s.readAs(tb, itemID, "crashed", 100)
}

// readAs reads up to n new entries into the group as consumer, without
// acknowledging them.
func (s *stack) readAs(tb testing.TB, itemID int64, consumer string, n int64) []keyspace.Entry {
	tb.Helper()
	res, err := s.rdb.XReadGroup(context.Background(), &redis.XReadGroupArgs{Group: keyspace.Group,
		Consumer: consumer, Streams: []string{s.keys.Item(itemID).Stream(), ">"}, Count: n}).Result()
	if err != nil {
		tb.Fatal(err)
	}
	var out []keyspace.Entry
	for _, m := range res[0].Messages {
		e, err := keyspace.ParseEntry(m.ID, m.Values)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// TestWarmRacingPurchases re-warms a sale over and over while shoppers buy
// and workers persist. Every warm either lands on a quiet instant or gives
// up with ErrBusy; none may leave Redis wrong.
func TestWarmRacingPurchases(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	it := s.sale(t, 200, 1)
	stop := s.workers(t, 2, time.Second)
	var bought, warms, busy atomic.Int64
	done := make(chan struct{})
	var storming atomic.Bool
	storming.Store(true)
	landed := make(chan struct{}) // closed when the first warm lands mid-storm
	var warmer sync.WaitGroup
	warmer.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			err := s.syncer.Warm(context.Background(), it.ID)
			switch {
			case err == nil && storming.Load():
				if warms.Add(1) == 1 {
					close(landed)
				}
			case err == nil:
			case errors.Is(err, stock.ErrBusy):
				busy.Add(1)
			default:
				t.Errorf("warm: %v", err)
			}
		}
	})
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			for i := range 40 {
				_, err := s.buy(it.ID, "g"+strconv.Itoa(g)+"-"+strconv.Itoa(i), 1)
				if err == nil {
					bought.Add(1)
				} else if !errors.Is(err, stock.ErrSoldOut) {
					t.Errorf("buy: %v", err)
				}
				// A warm takes a few ms and a purchase inside that window
				// aborts it, so leave gaps in which warms can land; halfway,
				// wait for one to have landed, so a loaded machine cannot
				// starve every warm of the race this test is about.
				time.Sleep(15 * time.Millisecond)
				if i == 20 {
					select {
					case <-landed:
					case <-time.After(10 * time.Second):
					}
				}
			}
		})
	}
	wg.Wait()
	storming.Store(false)
	close(done)
	warmer.Wait()
	s.drained(t, it.ID)
	stop()
	t.Logf("%d purchases; %d warms landed mid-storm, %d gave up busy", bought.Load(), warms.Load(), busy.Load())
	if warms.Load() == 0 {
		t.Fatal("no warm landed during the storm: the race was not exercised")
	}
	if active := s.invariants(t, it); len(active) != int(bought.Load()) {
		t.Fatalf("%d orders in MySQL, %d reserved", len(active), bought.Load())
	}
}

// TestWarmRepairsDrift: Redis lost its buyers and holds a wrong count; a warm
// restores both from MySQL plus the orders still in the stream.
func TestWarmRepairsDrift(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	it := s.sale(t, 10, 1)
	ctx := context.Background()
	if _, err := s.buy(it.ID, "persisted", 1); err != nil {
		t.Fatal(err)
	}
	stop := s.workers(t, 1, time.Second)
	s.drained(t, it.ID)
	stop()
	if _, err := s.buy(it.ID, "still-in-stream", 1); err != nil {
		t.Fatal(err)
	}
	k := s.keys.Item(it.ID)
	s.rdb.Set(ctx, k.Stock(), 99, 0)
	s.rdb.Del(ctx, k.Buyers())
	if st, _ := s.syncer.Stats(ctx, it.ID); st.Consistent {
		t.Fatalf("stats = %+v: drift not detected", st)
	}
	if err := s.syncer.Warm(ctx, it.ID); err != nil {
		t.Fatal(err)
	}
	if got := s.rdb.Get(ctx, k.Stock()).Val(); got != "8" {
		t.Fatalf("stock after warm = %s, want 8", got)
	}
	for _, user := range []string{"persisted", "still-in-stream"} {
		if _, err := s.buy(it.ID, user, 1); !errors.Is(err, stock.ErrAlreadyPurchased) {
			t.Fatalf("%s buying again after warm: %v, want ErrAlreadyPurchased", user, err)
		}
	}
	s.settle(t, it)
}

// TestRejectedOrdersRepairRedis: MySQL lost stock behind Redis's back (an
// operator edited it). Orders MySQL cannot hold are rejected and recorded as
// dead letters, and Redis is re-warmed to what MySQL really has, so it stops
// selling units that do not exist.
func TestRejectedOrdersRepairRedis(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	it := s.sale(t, 5, 1)
	ctx := context.Background()
	// An operator takes 3 units away in MySQL, from the sale and its variant.
	s.editMySQL(t, it.ID, "stock = 2")
	for i := range 4 {
		if _, err := s.buy(it.ID, "u"+strconv.Itoa(i), 1); err != nil {
			t.Fatal(err)
		}
	}
	s.workers(t, 1, time.Second)
	s.drained(t, it.ID)
	k := s.keys.Item(it.ID)
	if n := s.rdb.XLen(ctx, k.DeadLetters()).Val(); n != 2 {
		t.Fatalf("%d dead letters, want 2", n)
	}
	// The repair runs after the rejected entries are acknowledged, so it
	// may land just after the stream looks drained.
	testenv.WaitFor(t, 5*time.Second, func() bool { return s.rdb.Get(ctx, k.Stock()).Val() == "0" },
		"redis stock is not 0 after draining (MySQL had room for 2 of 4)")
	if buyers := s.rdb.HLen(ctx, k.Buyers()).Val(); buyers != 2 {
		t.Fatalf("%d buyers in redis, want the 2 persisted", buyers)
	}
	st, err := s.syncer.Stats(ctx, it.ID)
	if err != nil || st.Sold != 2 || st.StockMySQL != 0 {
		t.Fatalf("stats = %+v, %v", st, err)
	}
}
