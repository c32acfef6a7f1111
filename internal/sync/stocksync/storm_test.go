package stocksync_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/stock"
)

// TestStormSellsExactlyTheStock: 200 shoppers try 3 times each for 50 units
// while two workers persist, on a single Redis and on a Redis Cluster.
// Exactly 50 reservations, no shopper twice, every reserved order in MySQL
// once, and the stats agree throughout the storm.
func TestStormSellsExactlyTheStock(t *testing.T) {
	t.Parallel()
	onEachRedis(t, stormSellsExactlyTheStock)
}

func stormSellsExactlyTheStock(t *testing.T, s *stack) {
	it := s.sale(t, 50, 1)
	stop := s.workers(t, 2, time.Second)

	var (
		mu       sync.Mutex
		reserved = map[string]string{} // order id -> user
		other    atomic.Int64
	)
	storming := make(chan struct{})
	drift := make(chan string, 1)
	go watchStats(t, s, it.ID, storming, drift)

	var wg sync.WaitGroup
	for g := range 200 {
		user := "shopper" + strconv.Itoa(g)
		wg.Go(func() {
			for range 3 {
				res, err := s.buy(it.ID, user, 1)
				switch {
				case err == nil:
					mu.Lock()
					reserved[res.OrderID] = user
					mu.Unlock()
				case errors.Is(err, stock.ErrSoldOut), errors.Is(err, stock.ErrAlreadyPurchased):
				default:
					other.Add(1)
					t.Errorf("shopper %s: %v", user, err)
				}
			}
		})
	}
	wg.Wait()
	close(storming)
	s.drained(t, it.ID)
	stop()

	if msg := <-drift; msg != "" {
		t.Errorf("stats said drifted during the storm: %s", msg)
	}
	if len(reserved) != 50 {
		t.Fatalf("%d reservations, want exactly 50", len(reserved))
	}
	users := map[string]bool{}
	for _, u := range reserved {
		users[u] = true
	}
	if len(users) != 50 {
		t.Fatalf("50 reservations went to %d shoppers", len(users))
	}
	active := s.invariants(t, it)
	if len(active) != 50 {
		t.Fatalf("%d orders in MySQL, want 50", len(active))
	}
	for _, o := range active {
		if reserved[o.ID] != o.UserID {
			t.Errorf("order %s in MySQL was never reserved for %s", o.ID, o.UserID)
		}
	}
}

// watchStats polls the stats during the storm and reports the first time
// they said the stores disagree.
func watchStats(t *testing.T, s *stack, itemID int64, done <-chan struct{}, drift chan<- string) {
	msg := ""
	for {
		select {
		case <-done:
			drift <- msg
			return
		default:
		}
		st, err := s.syncer.Stats(context.Background(), itemID)
		if err != nil {
			t.Errorf("stats: %v", err)
		} else if !st.Consistent && msg == "" {
			msg = strconv.Quote(st.Problems[0])
		}
	}
}

// TestStatsAgreeWhileOrdersFlow checks the accounting that lets the stats
// compare Redis and MySQL mid-sale: thousands of purchases while workers
// persist in small batches, and the stats polled all along must never report
// drift, since none happens.
func TestStatsAgreeWhileOrdersFlow(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	it := s.sale(t, 3000, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := range 4 {
		go smallBatches(ctx, s, i)
	}
	storming := make(chan struct{})
	drift := make(chan string, 1)
	go watchStats(t, s, it.ID, storming, drift)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 375 {
				if _, err := s.buy(it.ID, "s"+strconv.Itoa(g)+"-"+strconv.Itoa(i), 1); err != nil {
					t.Errorf("buy: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	s.drained(t, it.ID)
	close(storming)
	if msg := <-drift; msg != "" {
		t.Errorf("stats said drifted while orders flowed: %s", msg)
	}
	if active := s.invariants(t, it); len(active) != 3000 {
		t.Fatalf("%d orders persisted, want 3000", len(active))
	}
}

// smallBatches persists a few entries at a time, so MySQL commits land
// between the stats' Redis read and MySQL read as often as possible.
func smallBatches(ctx context.Context, s *stack, i int) {
	p := newPersister(s, "small"+strconv.Itoa(i), 5)
	p.Run(ctx)
}
