package purchase

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// storedPrice is order id's unit price in MySQL.
func storedPrice(tb testing.TB, s *e2etest.Server, id string) int64 {
	tb.Helper()
	var unit int64
	if err := s.Db.Gorm.Raw("SELECT unit_price_cents FROM orders WHERE id = ?", id).Scan(&unit).Error; err != nil {
		tb.Fatal(err)
	}
	return unit
}

// shownOrder is the shopper's order id as GET /orders lists it.
func shownOrder(tb testing.TB, s *e2etest.Server, user, id string) map[string]any {
	tb.Helper()
	r := s.Call(tb, "GET", "/api/v1/orders", e2etest.MintToken(tb, user), nil)
	orders, _ := r.Body["orders"].([]any)
	for _, o := range orders {
		if m := o.(map[string]any); m["order_id"] == id {
			return m
		}
	}
	tb.Fatalf("%s's orders: %d %s; want %s among them", user, r.Status, r.Raw, id)
	return nil
}

// TestPriceFixedAtTheReservation: an order costs what its unit cost when
// the script took it, whatever an admin changes before the order reaches
// MySQL; the shopper pays that, and purchases after the change pay the new
// price.
func TestPriceFixedAtTheReservation(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk, e2etest.WithPayments(t), e2etest.NoPersisters)
	plain, _ := s.PricedSale(t, 1999)
	drop, sizes := s.PricedSale(t, 1999, e2etest.Size("EU 41", 5), e2etest.Size("EU 42", 5, "price_cents", 2499))
	patch := func(path string, price int64) {
		if r := s.Call(t, "PATCH", "/api/v1/admin/items/"+path, e2etest.AdminToken, map[string]any{"price_cents": price}); r.Status != 200 {
			t.Fatalf("PATCH %s: %d %s", path, r.Status, r.Raw)
		}
	}

	alice := s.BuyAt(t, plain, 0, "alice", "a-1", 2, 1999)
	carol := s.BuyAt(t, drop, sizes["EU 42"], "carol", "c-1", 1, 2499)
	patch(e2etest.Itoa(plain), 99999)
	patch(e2etest.Itoa(drop)+"/variants/"+e2etest.Itoa(sizes["EU 42"]), 99999)
	if o := shownOrder(t, s, "alice", alice); o["status"] != "pending" || !e2etest.PricedAt(o, 1999, 2) {
		t.Fatalf("alice's queued order after the price change: %v; want pending at 1999 a unit", o)
	}
	// A replay answers the price the order was taken at.
	if again := s.BuyAt(t, plain, 0, "alice", "a-1", 2, 1999); again != alice {
		t.Fatalf("replay answered order %s, want %s", again, alice)
	}
	bob := s.BuyAt(t, plain, 0, "bob", "b-1", 1, 99999)
	dave := s.BuyAt(t, drop, sizes["EU 42"], "dave", "d-1", 1, 99999)
	erin := s.BuyAt(t, drop, sizes["EU 41"], "erin", "e-1", 1, 1999) // the sale's price, unchanged

	s.WithPersisters(t, clk)
	s.Settle(t, plain)
	s.Settle(t, drop)
	for id, unit := range map[string]int64{alice: 1999, carol: 2499, bob: 99999, dave: 99999, erin: 1999} {
		if got := storedPrice(t, s, id); got != unit {
			t.Errorf("order %s stored at %d a unit, want %d", id, got, unit)
		}
	}
	if o := shownOrder(t, s, "alice", alice); o["status"] != "confirmed" || !e2etest.PricedAt(o, 1999, 2) {
		t.Fatalf("alice's order in MySQL: %v; want confirmed at 1999 a unit", o)
	}
	if r := s.Call(t, "GET", "/api/v1/orders/"+carol, e2etest.MintToken(t, "carol"), nil); !e2etest.PricedAt(r.Body, 2499, 1) {
		t.Fatalf("carol's order: %s; want 2499 a unit", r.Raw)
	}
	for id, amount := range map[string]int64{alice: 2 * 1999, carol: 2499} {
		e2etest.Outcome(t, s.Callback(t, e2etest.PaymentBody(id, "paid", amount, "pay-"+id)), "paid", "paid")
		evs := e2etest.OrderEvents(t, s, id)
		if e2etest.EventTypes(evs) != "order.confirmed,order.paid" || evs[0].Data["amount_cents"] != float64(amount) {
			t.Fatalf("events of order %s: %+v; want it confirmed at %d and paid, no refund", id, evs, amount)
		}
	}
}

// TestPriceAfterRedisLostTheSale: a sale Redis lost is warmed again with
// its prices from MySQL, and a replay of an order MySQL holds answers the
// price the order was taken at.
func TestPriceAfterRedisLostTheSale(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk)
	id, variants := s.PricedSale(t, 1999)
	alice := s.BuyAt(t, id, 0, "alice", "a-1", 1, 1999)
	s.Settle(t, id)

	rdb := redis.NewClient(&redis.Options{Addr: s.Cfg.Redis.Addr})
	defer rdb.Close()
	ctx := context.Background()
	k := keyspace.New(s.Cfg.RedisPrefix).Item(id)
	lost, err := rdb.Keys(ctx, k.Pattern()).Result()
	if err != nil || len(lost) == 0 {
		t.Fatalf("keys of the sale: %v, %v", lost, err)
	}
	rdb.Del(ctx, lost...)
	// Only MySQL hears of this one: Redis does not hold the sale.
	if r := s.Call(t, "PATCH", "/api/v1/admin/items/"+e2etest.Itoa(id), e2etest.AdminToken, map[string]any{"price_cents": 4999}); r.Status != 200 {
		t.Fatalf("PATCH: %d %s", r.Status, r.Raw)
	}

	if again := s.BuyAt(t, id, 0, "alice", "a-1", 1, 1999); again != alice {
		t.Fatalf("replay answered order %s, want %s", again, alice)
	}
	bob := s.BuyAt(t, id, 0, "bob", "b-1", 1, 4999)
	if got := rdb.HGet(ctx, k.Meta(), "price:"+e2etest.Itoa(variants["Default"])).Val(); got != "4999" {
		t.Fatalf("Redis's price after the warm: %q, want MySQL's 4999", got)
	}
	s.Settle(t, id)
	if a, b := storedPrice(t, s, alice), storedPrice(t, s, bob); a != 1999 || b != 4999 {
		t.Fatalf("orders stored at %d and %d a unit, want 1999 and 4999", a, b)
	}
}

// TestPriceChangesDuringPurchases: shoppers buy while an admin changes the
// price five times, as persisters write the orders; every order is stored at
// the price its 202 named.
func TestPriceChangesDuringPurchases(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk)
	id, _ := s.PricedSale(t, 1000)
	var (
		mu       sync.Mutex
		answers  []e2etest.Reply
		shoppers atomic.Int64
		changed  atomic.Bool
		wg       sync.WaitGroup
	)
	wg.Go(func() {
		defer changed.Store(true)
		for p := int64(1001); p <= 1005; p++ {
			if r := s.Call(t, "PATCH", "/api/v1/admin/items/"+e2etest.Itoa(id), e2etest.AdminToken, map[string]any{"price_cents": p}); r.Status != 200 {
				t.Errorf("PATCH: %d %s", r.Status, r.Raw)
			}
		}
	})
	for range 4 {
		wg.Go(func() {
			// Until the changes are done, within the sale's stock.
			for n := shoppers.Add(1); !changed.Load() && n <= 1000; n = shoppers.Add(1) {
				r := s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", e2etest.MintToken(t, "shopper"+e2etest.Itoa(n)), `{"quantity":1}`)
				mu.Lock()
				answers = append(answers, r)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	s.Settle(t, id)
	prices := map[float64]bool{}
	for _, r := range answers {
		unit, ok := r.Body["unit_price_cents"].(float64)
		if r.Status != 202 || !ok {
			t.Fatalf("purchase: %d %s; want 202 with unit_price_cents", r.Status, r.Raw)
		}
		if got := storedPrice(t, s, r.Str("order_id")); got != int64(unit) {
			t.Errorf("order %s: its 202 said %v a unit, MySQL has %d", r.Str("order_id"), unit, got)
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
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk, e2etest.NoPersisters)
	id, variants := s.PricedSale(t, 1999)
	s.BuyAt(t, id, 0, "alice", "a-1", 1, 1999) // warms the sale

	rdb := redis.NewClient(&redis.Options{Addr: s.Cfg.Redis.Addr})
	defer rdb.Close()
	ctx := context.Background()
	k := keyspace.New(s.Cfg.RedisPrefix).Item(id)
	field := "price:" + e2etest.Itoa(variants["Default"])
	if n, err := rdb.HDel(ctx, k.Meta(), field).Result(); err != nil || n != 1 {
		t.Fatalf("delete %s from the meta: %d, %v", field, n, err)
	}
	bob := s.BuyAt(t, id, 0, "bob", "b-1", 1, 1999)
	if got := rdb.HGet(ctx, k.Meta(), field).Val(); got != "1999" {
		t.Fatalf("Redis's price after bob's purchase: %q, want MySQL's 1999 warmed back", got)
	}
	if r := s.Call(t, "PATCH", "/api/v1/admin/items/"+e2etest.Itoa(id), e2etest.AdminToken, map[string]any{"price_cents": 4999}); r.Status != 200 {
		t.Fatalf("PATCH: %d %s", r.Status, r.Raw)
	}
	s.WithPersisters(t, clk)
	s.Settle(t, id)
	if got := storedPrice(t, s, bob); got != 1999 {
		t.Fatalf("bob's order stored at %d a unit, want the 1999 his 202 named", got)
	}
}
