package drop

import (
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestHTTPStormAcrossVariants: 400 shoppers on 200 connections storm a
// drop of five sizes, one order per shopper in the whole sale, through real
// HTTP with the sold-out marks and the admission gate on as in production.
// Each shopper tries four sizes drawn at random; a third retry every
// purchase with its Idempotency-Key; a quarter cancel their first order and
// go on to other sizes. Then fresh shoppers buy whatever cancels gave back.
// On a single Redis and on a Redis Cluster. Every answer fits what the
// shopper holds; no shopper ever holds two orders in any mix of sizes; each
// size sells exactly its stock; MySQL, Redis, the stats and the shop agree.
func TestHTTPStormAcrossVariants(t *testing.T) {
	t.Parallel()
	for _, tgt := range testenv.RedisTargets(t) {
		t.Run(tgt.Name, func(t *testing.T) { t.Parallel(); httpDropStorm(t, tgt.Redis) })
	}
}

func httpDropStorm(t *testing.T, target redisconn.Target) {
	const shoppers, workers = 400, 200
	s := e2etest.Start(t, &e2etest.LiveClock{}, e2etest.On(target), shippedGate(t), func(c *config.Config) { c.SoldOutTTL = time.Second })
	id, sizes := s.LiveDrop(t, 8, 6, 5, 4, 3)
	tally := &dropTally{outcomes: map[string]int{}, held: map[string]heldOrder{}, cancelled: map[int64]int{}}
	jobs := make(chan int)
	var wg sync.WaitGroup
	began := time.Now()
	for w := range workers {
		rng := rand.New(rand.NewPCG(42, uint64(w)))
		wg.Go(func() {
			for n := range jobs {
				user := "shopper" + strconv.Itoa(n)
				b := &dropBuyer{s: s, item: id, sizes: sizes, user: user, token: e2etest.MintToken(t, user), rng: rng,
					keyed: n%3 == 0, cancels: n%4 == 1, tally: tally}
				b.shop(t)
			}
		})
	}
	for n := range shoppers {
		jobs <- n
	}
	close(jobs)
	wg.Wait()
	t.Logf("%d shoppers in %v: %s; %d cancelled by size %v", shoppers, time.Since(began).Round(time.Millisecond),
		e2etest.Summary(tally.outcomes), tally.cancels(), tally.cancelled)
	for _, v := range sizes {
		sellRestOf(t, s, id, v, tally)
	}
	answeredLocally := e2etest.Metric(t, s, "gated_sold_out") + e2etest.Metric(t, s, "marked_sold_out")
	t.Logf("answered sold out without Redis (sold-out marks, admission gate): %d; gate busy: %d", answeredLocally,
		e2etest.Metric(t, s, "gated_unavailable"))
	if tally.outcomes["202 replayed"] == 0 || tally.cancels() == 0 || tally.offered == 0 || answeredLocally == 0 {
		t.Errorf("the storm missed a case: %d replays, %d cancels, %d sold-out answers offering other sizes, %d answered without Redis",
			tally.outcomes["202 replayed"], tally.cancels(), tally.offered, answeredLocally)
	}
	checkDropAfterStorm(t, s, id, tally)
}

// dropTally is what the shoppers were told.
type dropTally struct {
	mu        sync.Mutex
	outcomes  map[string]int
	held      map[string]heldOrder // user -> the order left held
	cancelled map[int64]int        // variant -> orders cancelled
	offered   int                  // sold-out answers that offered other sizes
}

type heldOrder struct {
	id      string
	variant int64
}

func (d *dropTally) cancels() int {
	n := 0
	for _, c := range d.cancelled {
		n += c
	}
	return n
}

func (d *dropTally) record(f func()) { d.mu.Lock(); defer d.mu.Unlock(); f() }

// outcomeOf names an answer as the storm counts it: "202", "202 replayed",
// or the status and error code.
func outcomeOf(r e2etest.Reply) string {
	switch {
	case r.Status == 202 && r.Header.Get("Idempotent-Replayed") == "true":
		return "202 replayed"
	case r.Status == 202:
		return "202"
	}
	return strconv.Itoa(r.Status) + " " + r.ErrCode()
}

// untilAnswered repeats a request while the server answers 503 (busy) or
// 409 order_pending (an order still being saved), both with Retry-After, as
// a client honouring it would, for up to 10 s.
func untilAnswered(send func() e2etest.Reply) e2etest.Reply {
	var r e2etest.Reply
	testenv.Eventually(10*time.Second, func() bool {
		r = send()
		return r.Status != 503 && r.ErrCode() != "order_pending"
	})
	return r
}

// sellRestOf has fresh shoppers buy one size until the server says it is
// sold out: units cancels gave back after the storm's shoppers were done
// must sell, and the sold-out answer must then be true.
func sellRestOf(t *testing.T, s *e2etest.Server, item, variant int64, tally *dropTally) {
	for n := 0; ; n++ {
		user := "late-" + strconv.FormatInt(variant, 10) + "-" + strconv.Itoa(n)
		tok := e2etest.MintToken(t, user)
		r := untilAnswered(func() e2etest.Reply { return s.BuyVariant(t, item, variant, tok, "") })
		switch r.Status {
		case 410:
			return
		case 202:
			tally.held[user] = heldOrder{r.Str("order_id"), variant}
		default:
			t.Fatalf("%s buying size %d after the storm: %d %s", user, variant, r.Status, r.Raw)
		}
	}
}
