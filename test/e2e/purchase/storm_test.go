package purchase

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestHTTPStorm: 10,000 purchase requests from 4,000 shoppers against 1,000
// units, with duplicates and Idempotency-Key retries, through real HTTP, on
// a single Redis and on a Redis Cluster. Exactly 1,000 orders are reserved,
// each in MySQL exactly once, no shopper holds two, and the stores agree
// once the stream is drained.
func TestHTTPStorm(t *testing.T) {
	t.Parallel()
	for _, tgt := range testenv.RedisTargets(t) {
		t.Run(tgt.Name, func(t *testing.T) { t.Parallel(); httpStorm(t, tgt.Redis) })
	}
}

func httpStorm(t *testing.T, target redisconn.Target) {
	const shoppers, requests, stock, workers = 4000, 10000, 1000, 32
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0), e2etest.On(target))
	id := s.Sale(t, stock, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	path := "/api/v1/items/" + e2etest.Itoa(id) + "/purchase"
	tokens := make([]string, shoppers)
	for i := range tokens {
		tokens[i] = e2etest.MintToken(t, "shopper"+strconv.Itoa(i))
	}

	var (
		mu       sync.Mutex
		outcomes = map[string]int{}
		orderOf  = map[string]string{} // user -> order id from any 202
	)
	jobs := make(chan int)
	var wg sync.WaitGroup
	began := time.Now()
	for range workers {
		wg.Go(func() {
			for n := range jobs {
				user := n % shoppers
				key := "" // half the shoppers retry with the key of their first try
				if user%2 == 0 {
					key = "retry-" + strconv.Itoa(user)
				}
				var hdr []string
				if key != "" {
					hdr = []string{"Idempotency-Key", key}
				}
				r := s.Call(t, "POST", path, tokens[user], nil, hdr...)
				outcome := strconv.Itoa(r.Status) + " " + r.ErrCode()
				if r.Header.Get("Idempotent-Replayed") == "true" {
					outcome += "(replayed)"
				}
				mu.Lock()
				outcomes[strings.TrimSpace(outcome)]++
				if r.Status == 202 {
					u := "shopper" + strconv.Itoa(user)
					if prev, ok := orderOf[u]; ok && prev != r.Str("order_id") {
						t.Errorf("%s got two orders: %s and %s", u, prev, r.Str("order_id"))
					}
					orderOf[u] = r.Str("order_id")
				}
				mu.Unlock()
			}
		})
	}
	for n := range requests {
		jobs <- n
	}
	close(jobs)
	wg.Wait()
	elapsed := time.Since(began)
	st := s.Settle(t, id)

	t.Logf("%d requests in %v (%.0f req/s, client in the same process): %s", requests, elapsed.Round(time.Millisecond),
		float64(requests)/elapsed.Seconds(), e2etest.Summary(outcomes))
	t.Logf("stats after drain: %s", st.Raw)
	for k := range outcomes {
		if strings.HasPrefix(k, "5") {
			t.Errorf("server errors: %s", e2etest.Summary(outcomes))
		}
	}
	if outcomes["202 (replayed)"] == 0 {
		t.Errorf("no Idempotency-Key replay happened: %s", e2etest.Summary(outcomes))
	}
	if len(orderOf) != stock {
		t.Fatalf("%d shoppers got an order, want exactly %d", len(orderOf), stock)
	}
	inMySQL := s.OrderIDs(t, id)
	if len(inMySQL) != stock {
		t.Fatalf("MySQL holds %d orders, want %d", len(inMySQL), stock)
	}
	for user, oid := range orderOf {
		if inMySQL[oid] != user {
			t.Errorf("acknowledged order %s of %s is not in MySQL (has %q)", oid, user, inMySQL[oid])
		}
	}
	if st.Body["consistent"] != true || st.Body["sold"].(float64) != stock || st.Body["stock_redis"].(float64) != 0 {
		t.Fatalf("after the storm: %s", st.Raw)
	}
}
