package app_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
)

// withPersisters starts a second server on s's MySQL database and Redis
// keys whose persisters write what s queued.
func (s *server) withPersisters(tb testing.TB, clk interface{ Now() time.Time }) {
	tb.Helper()
	cfg := s.cfg
	cfg.HTTPAddr, cfg.Workers = "127.0.0.1:0", 2
	launch(tb, clk, quiet(), cfg, s.db)
}

// pricedSale creates a sale whose unit costs price, of the drop's sizes if
// any are given, and returns its id and its variants' ids by label.
func (s *server) pricedSale(tb testing.TB, price int64, sizes ...map[string]any) (int64, map[string]int64) {
	tb.Helper()
	body := dropBody(t0, sizes...)
	body["price_cents"] = price
	if len(sizes) == 0 {
		delete(body, "variants")
		body["stock_total"] = 1000
	}
	r := s.call(tb, "POST", "/api/v1/admin/items", adminToken, body)
	if r.status != 201 {
		tb.Fatalf("create sale: %d %s", r.status, r.raw)
	}
	return int64(num(r.body, "id")), variantIDs(tb, r)
}

// buyAt buys qty units (of variant, unless 0) and checks the 202 names
// the price the shopper got: unit each, unit × qty in all. It returns the
// order's id.
func (s *server) buyAt(tb testing.TB, item, variant int64, user, key string, qty int, unit int64) string {
	tb.Helper()
	body := fmt.Sprintf(`{"quantity":%d}`, qty)
	if variant != 0 {
		body = fmt.Sprintf(`{"variant_id":%d,"quantity":%d}`, variant, qty)
	}
	r := s.call(tb, "POST", "/api/v1/items/"+itoa(item)+"/purchase", mintToken(tb, user), body, "Idempotency-Key", key)
	if r.status != 202 || !pricedAt(r.body, unit, qty) {
		tb.Fatalf("%s buys %d: %d %s; want 202 at %d a unit", user, qty, r.status, r.raw, unit)
	}
	return r.str("order_id")
}

// pricedAt says whether an order as the API shows it costs unit each.
func pricedAt(o map[string]any, unit int64, qty int) bool {
	return o["unit_price_cents"] == float64(unit) && o["amount_cents"] == float64(unit*int64(qty))
}

// storedPrice is order id's unit price in MySQL.
func storedPrice(tb testing.TB, s *server, id string) int64 {
	tb.Helper()
	var unit int64
	if err := s.db.Gorm.Raw("SELECT unit_price_cents FROM orders WHERE id = ?", id).Scan(&unit).Error; err != nil {
		tb.Fatal(err)
	}
	return unit
}

// shownOrder is the shopper's order id as GET /orders lists it.
func shownOrder(tb testing.TB, s *server, user, id string) map[string]any {
	tb.Helper()
	r := s.call(tb, "GET", "/api/v1/orders", mintToken(tb, user), nil)
	orders, _ := r.body["orders"].([]any)
	for _, o := range orders {
		if m := o.(map[string]any); m["order_id"] == id {
			return m
		}
	}
	tb.Fatalf("%s's orders: %d %s; want %s among them", user, r.status, r.raw, id)
	return nil
}

// TestPriceFixedAtTheReservation: an order costs what its unit cost when
// the script took it, whatever an admin changes before the order reaches
// MySQL; the shopper pays that, and purchases after the change pay the new
// price.
func TestPriceFixedAtTheReservation(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk, withPayments(t), noPersisters)
	plain, _ := s.pricedSale(t, 1999)
	drop, sizes := s.pricedSale(t, 1999, size("EU 41", 5), size("EU 42", 5, "price_cents", 2499))
	patch := func(path string, price int64) {
		if r := s.call(t, "PATCH", "/api/v1/admin/items/"+path, adminToken, map[string]any{"price_cents": price}); r.status != 200 {
			t.Fatalf("PATCH %s: %d %s", path, r.status, r.raw)
		}
	}

	alice := s.buyAt(t, plain, 0, "alice", "a-1", 2, 1999)
	carol := s.buyAt(t, drop, sizes["EU 42"], "carol", "c-1", 1, 2499)
	patch(itoa(plain), 99999)
	patch(itoa(drop)+"/variants/"+itoa(sizes["EU 42"]), 99999)
	if o := shownOrder(t, s, "alice", alice); o["status"] != "pending" || !pricedAt(o, 1999, 2) {
		t.Fatalf("alice's queued order after the price change: %v; want pending at 1999 a unit", o)
	}
	// A replay answers the price the order was taken at.
	if again := s.buyAt(t, plain, 0, "alice", "a-1", 2, 1999); again != alice {
		t.Fatalf("replay answered order %s, want %s", again, alice)
	}
	bob := s.buyAt(t, plain, 0, "bob", "b-1", 1, 99999)
	dave := s.buyAt(t, drop, sizes["EU 42"], "dave", "d-1", 1, 99999)
	erin := s.buyAt(t, drop, sizes["EU 41"], "erin", "e-1", 1, 1999) // the sale's price, unchanged

	s.withPersisters(t, clk)
	s.settle(t, plain)
	s.settle(t, drop)
	for id, unit := range map[string]int64{alice: 1999, carol: 2499, bob: 99999, dave: 99999, erin: 1999} {
		if got := storedPrice(t, s, id); got != unit {
			t.Errorf("order %s stored at %d a unit, want %d", id, got, unit)
		}
	}
	if o := shownOrder(t, s, "alice", alice); o["status"] != "confirmed" || !pricedAt(o, 1999, 2) {
		t.Fatalf("alice's order in MySQL: %v; want confirmed at 1999 a unit", o)
	}
	if r := s.call(t, "GET", "/api/v1/orders/"+carol, mintToken(t, "carol"), nil); !pricedAt(r.body, 2499, 1) {
		t.Fatalf("carol's order: %s; want 2499 a unit", r.raw)
	}
	for id, amount := range map[string]int64{alice: 2 * 1999, carol: 2499} {
		outcome(t, s.callback(t, paymentBody(id, "paid", amount, "pay-"+id)), "paid", "paid")
		evs := orderEvents(t, s, id)
		if eventTypes(evs) != "order.confirmed,order.paid" || evs[0].Data["amount_cents"] != float64(amount) {
			t.Fatalf("events of order %s: %+v; want it confirmed at %d and paid, no refund", id, evs, amount)
		}
	}
}

// TestPriceAfterRedisLostTheSale: a sale Redis lost is warmed again with
// its prices from MySQL, and a replay of an order MySQL holds answers the
// price the order was taken at.
func TestPriceAfterRedisLostTheSale(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk)
	id, variants := s.pricedSale(t, 1999)
	alice := s.buyAt(t, id, 0, "alice", "a-1", 1, 1999)
	s.settle(t, id)

	rdb := redis.NewClient(&redis.Options{Addr: s.cfg.Redis.Addr})
	defer rdb.Close()
	ctx := context.Background()
	k := keyspace.New(s.cfg.RedisPrefix).Item(id)
	lost, err := rdb.Keys(ctx, k.Pattern()).Result()
	if err != nil || len(lost) == 0 {
		t.Fatalf("keys of the sale: %v, %v", lost, err)
	}
	rdb.Del(ctx, lost...)
	// Only MySQL hears of this one: Redis does not hold the sale.
	if r := s.call(t, "PATCH", "/api/v1/admin/items/"+itoa(id), adminToken, map[string]any{"price_cents": 4999}); r.status != 200 {
		t.Fatalf("PATCH: %d %s", r.status, r.raw)
	}

	if again := s.buyAt(t, id, 0, "alice", "a-1", 1, 1999); again != alice {
		t.Fatalf("replay answered order %s, want %s", again, alice)
	}
	bob := s.buyAt(t, id, 0, "bob", "b-1", 1, 4999)
	if got := rdb.HGet(ctx, k.Meta(), "price:"+itoa(variants["Default"])).Val(); got != "4999" {
		t.Fatalf("Redis's price after the warm: %q, want MySQL's 4999", got)
	}
	s.settle(t, id)
	if a, b := storedPrice(t, s, alice), storedPrice(t, s, bob); a != 1999 || b != 4999 {
		t.Fatalf("orders stored at %d and %d a unit, want 1999 and 4999", a, b)
	}
}

// TestPriceChangesDuringPurchases: shoppers buy while an admin changes the
// price five times, as persisters write the orders; every order is stored at
// the price its 202 named.
func TestPriceChangesDuringPurchases(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk)
	id, _ := s.pricedSale(t, 1000)
	var (
		mu       sync.Mutex
		answers  []reply
		shoppers atomic.Int64
		changed  atomic.Bool
		wg       sync.WaitGroup
	)
	wg.Go(func() {
		defer changed.Store(true)
		for p := int64(1001); p <= 1005; p++ {
			if r := s.call(t, "PATCH", "/api/v1/admin/items/"+itoa(id), adminToken, map[string]any{"price_cents": p}); r.status != 200 {
				t.Errorf("PATCH: %d %s", r.status, r.raw)
			}
		}
	})
	for range 4 {
		wg.Go(func() {
			// Until the changes are done, within the sale's stock.
			for n := shoppers.Add(1); !changed.Load() && n <= 1000; n = shoppers.Add(1) {
				r := s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", mintToken(t, "shopper"+itoa(n)), `{"quantity":1}`)
				mu.Lock()
				answers = append(answers, r)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	s.settle(t, id)
	prices := map[float64]bool{}
	for _, r := range answers {
		unit, ok := r.body["unit_price_cents"].(float64)
		if r.status != 202 || !ok {
			t.Fatalf("purchase: %d %s; want 202 with unit_price_cents", r.status, r.raw)
		}
		if got := storedPrice(t, s, r.str("order_id")); got != int64(unit) {
			t.Errorf("order %s: its 202 said %v a unit, MySQL has %d", r.str("order_id"), unit, got)
		}
		prices[unit] = true
	}
	if len(prices) < 2 {
		t.Fatalf("%d orders, all at one price: the changes did not overlap the purchases", len(answers))
	}
	t.Logf("%d orders at %d prices", len(answers), len(prices))
}

// TestPriceMissingFromMeta: a meta without a variant's price (written by a
// server from before prices travelled with orders, or left by a failed
// warm) does not sell unpriced, which would price the order when it is
// persisted, after any change: the script answers "not warmed", the sale
// is warmed from MySQL and the order carries MySQL's price, which a PATCH
// before persistence does not change.
func TestPriceMissingFromMeta(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk, noPersisters)
	id, variants := s.pricedSale(t, 1999)
	s.buyAt(t, id, 0, "alice", "a-1", 1, 1999) // warms the sale

	rdb := redis.NewClient(&redis.Options{Addr: s.cfg.Redis.Addr})
	defer rdb.Close()
	ctx := context.Background()
	k := keyspace.New(s.cfg.RedisPrefix).Item(id)
	field := "price:" + itoa(variants["Default"])
	if n, err := rdb.HDel(ctx, k.Meta(), field).Result(); err != nil || n != 1 {
		t.Fatalf("delete %s from the meta: %d, %v", field, n, err)
	}
	bob := s.buyAt(t, id, 0, "bob", "b-1", 1, 1999)
	if got := rdb.HGet(ctx, k.Meta(), field).Val(); got != "1999" {
		t.Fatalf("Redis's price after bob's purchase: %q, want MySQL's 1999 warmed back", got)
	}
	if r := s.call(t, "PATCH", "/api/v1/admin/items/"+itoa(id), adminToken, map[string]any{"price_cents": 4999}); r.status != 200 {
		t.Fatalf("PATCH: %d %s", r.status, r.raw)
	}
	s.withPersisters(t, clk)
	s.settle(t, id)
	if got := storedPrice(t, s, bob); got != 1999 {
		t.Fatalf("bob's order stored at %d a unit, want the 1999 his 202 named", got)
	}
}
