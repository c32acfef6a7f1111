package stocksync_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/order"
	"github.com/seckill/seckill/internal/stock"
	"github.com/seckill/seckill/internal/testenv"
)

// TestStormAcrossVariants: 400 shoppers on 200 goroutines storm a drop of
// five sizes with one order per shopper in the whole sale, each trying four
// sizes drawn at random while two workers persist. A third of them retry
// every purchase with its Idempotency-Key; a quarter cancel their first
// order once it is persisted and go on to other sizes. Then fresh shoppers
// buy whatever cancels gave back. On a single Redis and on a Redis Cluster,
// where the reserve script's keys (each size's stock among them) must share
// one slot. No shopper ever holds two orders in any mix of sizes, Redis's
// buyers agree with MySQL, every size sells exactly its stock, and the
// stores and the stats agree per size.
func TestStormAcrossVariants(t *testing.T) {
	t.Parallel()
	onEachRedis(t, stormAcrossVariants)
}

func stormAcrossVariants(t *testing.T, s *stack) {
	it := s.drop(t, 1, 12, 10, 8, 6, 4)
	stop := s.workers(t, 2, time.Second)
	led := &ledger{held: map[string]string{}, cancelled: map[int64]int{}}
	var wg sync.WaitGroup
	for g := range 200 {
		rng := rand.New(rand.NewPCG(13, uint64(g)))
		wg.Go(func() {
			for _, n := range []int{g, g + 200} {
				sh := dropShopper{s: s, it: it, led: led, rng: rng, user: "shopper" + strconv.Itoa(n),
					keyed: n%3 == 0, cancels: n%4 == 1}
				sh.shop(t)
			}
		})
	}
	wg.Wait()
	for _, v := range it.Variants {
		sellRest(t, s, it.ID, v.ID, led)
	}
	s.drained(t, it.ID)
	stop()
	t.Logf("%d shoppers hold an order, %d cancelled by size %v", len(led.held), led.cancels(), led.cancelled)
	if led.cancels() == 0 {
		t.Fatal("no shopper cancelled: the storm did not test buying again after a cancel")
	}
	checkDrop(t, s, it, led)
}

// ledger is what the shoppers were told: each one's active order and the
// cancels per size.
type ledger struct {
	mu        sync.Mutex
	held      map[string]string // user -> the order reserved and not cancelled
	cancelled map[int64]int     // variant -> orders cancelled
}

func (l *ledger) cancels() int {
	n := 0
	for _, c := range l.cancelled {
		n += c
	}
	return n
}

type dropShopper struct {
	s              *stack
	it             catalog.Item
	led            *ledger
	rng            *rand.Rand
	user           string
	keyed, cancels bool
	holds          string // the order held, "" for none
}

// shop tries four sizes in turn. Whatever the mix, the answers must be:
// an order only while holding none, already_purchased naming the order
// held, sold out only while holding none.
func (sh *dropShopper) shop(t *testing.T) {
	for attempt := range 4 {
		v := sh.it.Variants[sh.rng.IntN(len(sh.it.Variants))].ID
		key := ""
		if sh.keyed {
			key = sh.user + "-" + strconv.Itoa(attempt)
		}
		res, err := sh.buy(v, key)
		var ap *stock.AlreadyPurchasedError
		switch {
		case err == nil:
			sh.reserved(t, v, key, res)
		case errors.As(err, &ap):
			if ap.Existing.OrderID != sh.holds {
				t.Errorf("%s holds %q, told it holds %s", sh.user, sh.holds, ap.Existing.OrderID)
			}
		case errors.Is(err, stock.ErrSoldOut):
			if sh.holds != "" {
				t.Errorf("%s holds %s, told size %d is sold out instead of already purchased", sh.user, sh.holds, v)
			}
		default:
			t.Errorf("%s buying size %d: %v", sh.user, v, err)
		}
	}
}

func (sh *dropShopper) buy(variant int64, key string) (stock.Reservation, error) {
	return sh.s.stock.Reserve(context.Background(), stock.Request{ItemID: sh.it.ID, VariantID: variant,
		UserID: sh.user, Quantity: 1, OrderID: newID(), IdempotencyKey: key, Now: t0.Add(time.Second)})
}

// reserved records a new order; a keyed shopper retries it at once (the
// answer must be the same order), and a canceller cancels its first one.
func (sh *dropShopper) reserved(t *testing.T, v int64, key string, res stock.Reservation) {
	if sh.holds != "" || res.VariantID != v {
		t.Errorf("%s holding %q got order %s of size %d for size %d", sh.user, sh.holds, res.OrderID, res.VariantID, v)
	}
	sh.holds = res.OrderID
	if key != "" {
		again, err := sh.buy(v, key)
		if err != nil || !again.Replayed || again.OrderID != res.OrderID {
			t.Errorf("%s retrying key %s: %+v, %v; want a replay of %s", sh.user, key, again, err, res.OrderID)
		}
	}
	if !sh.cancels {
		sh.led.mu.Lock()
		sh.led.held[sh.user] = res.OrderID
		sh.led.mu.Unlock()
		return
	}
	sh.cancels = false
	ctx := context.Background()
	if !testenv.Eventually(10*time.Second, func() bool { _, err := sh.s.orders.Get(ctx, res.OrderID); return err == nil }) {
		t.Errorf("order %s of %s not persisted after 10s", res.OrderID, sh.user)
		return
	}
	if _, err := sh.s.sales.Cancel(ctx, res.OrderID, sh.user, order.ReasonShopper); err != nil {
		t.Errorf("%s cancelling %s: %v", sh.user, res.OrderID, err)
		return
	}
	sh.holds = ""
	sh.led.mu.Lock()
	sh.led.cancelled[v]++
	sh.led.mu.Unlock()
}

// sellRest has fresh shoppers buy a size until it is sold out: the units
// cancels gave back after the storm's shoppers were done sell too.
func sellRest(t *testing.T, s *stack, itemID, variant int64, led *ledger) {
	for n := 0; ; n++ {
		user := "late-" + strconv.FormatInt(variant, 10) + "-" + strconv.Itoa(n)
		res, err := s.stock.Reserve(context.Background(), stock.Request{ItemID: itemID, VariantID: variant,
			UserID: user, Quantity: 1, OrderID: newID(), Now: t0.Add(time.Second)})
		if errors.Is(err, stock.ErrSoldOut) {
			return
		}
		if err != nil {
			t.Fatalf("%s buying size %d: %v", user, variant, err)
		}
		led.held[user] = res.OrderID
	}
}

// checkDrop checks the drained drop against what the shoppers were told:
// MySQL holds exactly the orders held, one per shopper; Redis's buyers are
// those shoppers with those orders; every size sold exactly its stock and
// its stock agrees in MySQL, Redis and the stats, as do the sale's sums.
func checkDrop(t *testing.T, s *stack, it catalog.Item, led *ledger) {
	ctx := context.Background()
	active := s.invariants(t, it)
	sold := map[int64]int{}
	for _, o := range active {
		sold[o.VariantID] += o.Quantity
		if led.held[o.UserID] != o.ID {
			t.Errorf("MySQL holds order %s of %s, who was left holding %q", o.ID, o.UserID, led.held[o.UserID])
		}
	}
	if len(active) != len(led.held) {
		t.Errorf("MySQL holds %d active orders, shoppers hold %d", len(active), len(led.held))
	}
	buyers, err := s.rdb.HGetAll(ctx, s.keys.Item(it.ID).Buyers()).Result()
	if err != nil {
		t.Fatal(err)
	}
	for user, v := range buyers {
		if b, err := keyspace.ParseBuyer(v); err != nil || b.OrderID != led.held[user] {
			t.Errorf("Redis says %s holds %s (%v), shoppers say %q", user, v, err, led.held[user])
		}
	}
	if len(buyers) != len(led.held) {
		t.Errorf("Redis has %d buyers, shoppers hold %d orders", len(buyers), len(led.held))
	}
	checkSizes(t, s, it.ID, sold, led.cancelled)
}

// checkSizes checks each size's figures once drained and sold out.
func checkSizes(t *testing.T, s *stack, itemID int64, sold map[int64]int, cancelled map[int64]int) {
	ctx := context.Background()
	cur, err := s.items.Get(ctx, itemID)
	if err != nil {
		t.Fatal(err)
	}
	vstock, err := s.rdb.HGetAll(ctx, s.keys.Item(itemID).VariantStock()).Result()
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.syncer.Stats(ctx, itemID)
	if err != nil {
		t.Fatal(err)
	}
	sumStock, sumTotal := 0, 0
	for i, v := range cur.Variants {
		sumStock, sumTotal = sumStock+v.Stock, sumTotal+v.StockTotal
		vs := st.Variants[i]
		if sold[v.ID] != v.StockTotal || v.Stock != 0 || vstock[strconv.FormatInt(v.ID, 10)] != "0" {
			t.Errorf("%s: sold %d of %d; MySQL stock %d, Redis %q: want all sold, 0 left in both",
				v.Label, sold[v.ID], v.StockTotal, v.Stock, vstock[strconv.FormatInt(v.ID, 10)])
		}
		if vs.VariantID != v.ID || !vs.Consistent || vs.Sold != v.StockTotal || vs.OrdersPending != 0 ||
			vs.OrdersCancelled != cancelled[v.ID] {
			t.Errorf("%s: stats %+v; want consistent, sold %d, none pending, %d cancelled",
				v.Label, vs, v.StockTotal, cancelled[v.ID])
		}
	}
	if sumStock != cur.Stock || sumTotal != cur.StockTotal {
		t.Errorf("the sale's row says %d of %d, its sizes sum to %d of %d", cur.Stock, cur.StockTotal, sumStock, sumTotal)
	}
}
