package stock_test

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/stock"
	"github.com/seckill/seckill/internal/testenv"
)

// batchScene is a mix that exercises every rule inside one batch: the same
// shopper twice, an idempotent retry, a key reused with another quantity,
// a quantity above the limit, stock running out half-way, a sale Redis does
// not know, and two sales interleaved.
func batchScene(at time.Time) []stock.Request {
	r := func(item int64, user string, qty int, key string) stock.Request {
		return stock.Request{ItemID: item, UserID: user, Quantity: qty, OrderID: "o-" + strconv.FormatInt(item, 10) + "-" + user + key,
			IdempotencyKey: key, Now: at}
	}
	return []stock.Request{
		r(1, "ann", 1, "k1"), r(2, "ann", 2, ""), r(1, "ann", 1, "k1"), r(1, "ann", 2, "k1"),
		r(1, "ann", 1, ""), r(1, "bob", 3, ""), r(1, "cat", 2, ""), r(2, "bob", 1, ""),
		r(1, "dan", 2, ""), r(1, "eve", 1, ""), r(1, "fay", 1, ""), r(99, "gus", 1, ""),
		{ItemID: 1, UserID: "early", Quantity: 1, OrderID: "o-early", Now: t0.Add(-time.Millisecond)},
	}
}

type snapshot struct {
	Outcomes []string
	Stock    map[int64]string
	Buyers   map[int64]map[string]string
	Streams  map[int64][]map[string]any
}

func describe(o stock.Outcome) string {
	if o.Err != nil {
		return "error: " + o.Err.Error()
	}
	return fmt.Sprintf("%s left=%d replayed=%v", o.Buyer, o.StockLeft, o.Replayed)
}

func capture(t *testing.T, rdb *redis.Client, keys keyspace.Space, outcomes []stock.Outcome) snapshot {
	t.Helper()
	ctx := context.Background()
	snap := snapshot{Stock: map[int64]string{}, Buyers: map[int64]map[string]string{}, Streams: map[int64][]map[string]any{}}
	for _, o := range outcomes {
		snap.Outcomes = append(snap.Outcomes, describe(o))
	}
	for _, item := range []int64{1, 2} {
		k := keys.Item(item)
		snap.Stock[item] = rdb.Get(ctx, k.Stock()).Val()
		snap.Buyers[item] = rdb.HGetAll(ctx, k.Buyers()).Val()
		for _, m := range rdb.XRange(ctx, k.Stream(), "-", "+").Val() {
			snap.Streams[item] = append(snap.Streams[item], m.Values)
		}
	}
	return snap
}

// One batch must answer, and leave Redis, exactly as the same requests run
// one at a time would.
func TestBatchEqualsOneAtATime(t *testing.T) {
	t.Parallel()
	at := t0.Add(time.Minute)
	ctx := context.Background()
	var snaps []snapshot
	for _, batched := range []bool{false, true} {
		s, rdb, keys := newSale(t, 5, 2)
		warm(t, s, 2, sale(10, 2))
		reqs := batchScene(at)
		out := make([]stock.Outcome, len(reqs))
		if batched {
			s.ReserveBatch(ctx, reqs, out)
		} else {
			for i, r := range reqs {
				s.ReserveBatch(ctx, []stock.Request{r}, out[i:i+1])
			}
		}
		snaps = append(snaps, capture(t, rdb, keys, out))
	}
	if !reflect.DeepEqual(snaps[0], snaps[1]) {
		t.Fatalf("batch differs from one at a time:\nalone: %+v\nbatch: %+v", snaps[0], snaps[1])
	}
	if got := snaps[1].Stock[1]; got != "0" {
		t.Fatalf("sale 1 has %s left, want 0: the scene should sell it out", got)
	}
}

// runCoalesced runs s's coalescer until the test ends and returns once its
// workers take calls (until then a reserve runs alone on its caller). It
// reserves units of a probe sale, item 99, until heard reports that a
// worker's batch ran (OnBatch hears workers' batches only).
func runCoalesced(tb testing.TB, s *stock.Store, heard func() bool) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	tb.Cleanup(func() { cancel(); <-done })
	const probe = 99
	warm(tb, s, probe, sale(1<<40, 1))
	n := 0
	testenv.WaitFor(tb, 5*time.Second, func() bool {
		n++
		u := "probe" + strconv.Itoa(n)
		if _, err := s.Reserve(ctx, stock.Request{ItemID: probe, UserID: u, Quantity: 1, OrderID: "o-" + u, Now: t0.Add(time.Minute)}); err != nil {
			tb.Fatalf("probe reserve: %v", err)
		}
		return heard()
	}, "no reserve went through the coalescer's workers")
}

// Under concurrency the coalescer forms batches, and still no unit is sold
// twice and every shopper's answer is their own.
func TestConcurrentReservesShareBatches(t *testing.T) {
	t.Parallel()
	s, rdb, keys := newSale(t, 300, 1)
	var batches, calls int
	var mu sync.Mutex
	s.OnBatch(func(n int) { mu.Lock(); batches++; calls += n; mu.Unlock() })
	runCoalesced(t, s, func() bool { mu.Lock(); defer mu.Unlock(); return batches > 0 })
	mu.Lock()
	batches, calls = 0, 0 // the probe's
	mu.Unlock()
	at := t0.Add(time.Minute)
	var wg sync.WaitGroup
	got := make([]stock.Reservation, 1000)
	errs := make([]error, 1000)
	for i := range 1000 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = s.Reserve(context.Background(), req("u"+strconv.Itoa(i), 1, at))
		}()
	}
	wg.Wait()
	sold := 0
	for i, err := range errs {
		if err == nil {
			sold++
			if got[i].OrderID != "order-u"+strconv.Itoa(i) {
				t.Fatalf("shopper %d got order %s", i, got[i].OrderID)
			}
		}
	}
	stream := rdb.XLen(context.Background(), keys.Item(1).Stream()).Val()
	if sold != 300 || stream != 300 || rdb.Get(context.Background(), keys.Item(1).Stock()).Val() != "0" {
		t.Fatalf("sold %d, stream %d; want 300 and 0 left", sold, stream)
	}
	mu.Lock()
	defer mu.Unlock()
	if calls != 1000 || batches >= 1000 {
		t.Fatalf("%d calls in %d batches: want all 1000 calls, in fewer batches", calls, batches)
	}
	t.Logf("1000 concurrent reserves in %d script calls", batches)
}

// A sold-out answer says how many times stock had come back, so servers can
// tell a stale sold-out from a current one.
func TestSoldOutCarriesTheReturnsCount(t *testing.T) {
	t.Parallel()
	s, _, _ := newStore(t)
	ctx := context.Background()
	var heard []int64
	s.OnReturn(func(r keyspace.Return) { heard = append(heard, r.ItemID, r.Count, r.Left) })
	warm(t, s, 1, sale(1, 1)) // a warm counts as return 1
	at := t0.Add(time.Minute)
	first, err := s.Reserve(ctx, req("ann", 1, at))
	if err != nil || first.Returns != 1 {
		t.Fatalf("reserve: %+v %v, want returns 1", first, err)
	}
	if _, err := s.Release(ctx, 1, 1, "ann", first.OrderID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reserve(ctx, req("bob", 1, at)); err != nil {
		t.Fatal(err)
	}
	_, err = s.Reserve(ctx, req("cat", 1, at))
	so, ok := err.(*stock.SoldOutError)
	if !ok || so.Returns != 2 || so.Left != 0 {
		t.Fatalf("third reserve: %v, want sold out after 2 returns", err)
	}
	if want := []int64{1, 1, 1, 1, 2, 1}; !reflect.DeepEqual(heard, want) {
		t.Fatalf("returns heard %v, want %v (item, count, left)", heard, want)
	}
}
