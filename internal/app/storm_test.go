package app_test

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/testenv"
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
	s := start(t, newClock(t0), on(target))
	id := s.sale(t, stock, 1, t0, t0.Add(time.Hour))
	path := "/api/v1/items/" + itoa(id) + "/purchase"
	tokens := make([]string, shoppers)
	for i := range tokens {
		tokens[i] = mintToken(t, "shopper"+strconv.Itoa(i))
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
				r := s.call(t, "POST", path, tokens[user], nil, hdr...)
				outcome := strconv.Itoa(r.status) + " " + r.errCode()
				if r.header.Get("Idempotent-Replayed") == "true" {
					outcome += "(replayed)"
				}
				mu.Lock()
				outcomes[strings.TrimSpace(outcome)]++
				if r.status == 202 {
					u := "shopper" + strconv.Itoa(user)
					if prev, ok := orderOf[u]; ok && prev != r.str("order_id") {
						t.Errorf("%s got two orders: %s and %s", u, prev, r.str("order_id"))
					}
					orderOf[u] = r.str("order_id")
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
	st := s.settle(t, id)

	t.Logf("%d requests in %v (%.0f req/s, client in the same process): %s", requests, elapsed.Round(time.Millisecond),
		float64(requests)/elapsed.Seconds(), summary(outcomes))
	t.Logf("stats after drain: %s", st.raw)
	for k := range outcomes {
		if strings.HasPrefix(k, "5") {
			t.Errorf("server errors: %s", summary(outcomes))
		}
	}
	if outcomes["202 (replayed)"] == 0 {
		t.Errorf("no Idempotency-Key replay happened: %s", summary(outcomes))
	}
	if len(orderOf) != stock {
		t.Fatalf("%d shoppers got an order, want exactly %d", len(orderOf), stock)
	}
	inMySQL := s.orderIDs(t, id)
	if len(inMySQL) != stock {
		t.Fatalf("MySQL holds %d orders, want %d", len(inMySQL), stock)
	}
	for user, oid := range orderOf {
		if inMySQL[oid] != user {
			t.Errorf("acknowledged order %s of %s is not in MySQL (has %q)", oid, user, inMySQL[oid])
		}
	}
	if st.body["consistent"] != true || st.body["sold"].(float64) != stock || st.body["stock_redis"].(float64) != 0 {
		t.Fatalf("after the storm: %s", st.raw)
	}
}

// orderIDs reads the sale's orders straight from MySQL: order id -> user.
func (s *server) orderIDs(tb testing.TB, itemID int64) map[string]string {
	tb.Helper()
	var rows []struct{ ID, UserID string }
	if err := s.db.Gorm.Raw("SELECT id, user_id FROM orders WHERE item_id = ?", itemID).Scan(&rows).Error; err != nil {
		tb.Fatal(err)
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		if _, dup := out[r.ID]; dup {
			tb.Errorf("order %s stored twice", r.ID)
		}
		out[r.ID] = r.UserID
	}
	return out
}

// mintToken signs a shopper token as a shop's own login would.
func mintToken(tb testing.TB, user string) string {
	tb.Helper()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		// Valid both for servers on the test clock t0 and on the real clock.
		"sub": user, "exp": time.Now().Add(48 * time.Hour).Unix(),
	}).SignedString([]byte(jwtSecret))
	if err != nil {
		tb.Fatal(err)
	}
	return tok
}

func summary(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}
