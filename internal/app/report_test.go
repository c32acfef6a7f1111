package app_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/ratelimit"
	"github.com/seckill/seckill/internal/testenv"
)

// saleReport is GET /api/v1/admin/items/{id}/report, decoded.
type saleReport struct {
	ItemID          int64          `json:"item_id"`
	Status          string         `json:"status"`
	StockTotal      int            `json:"stock_total"`
	Sold            int            `json:"sold"`
	OrdersByStatus  map[string]int `json:"orders_by_status"`
	Cancellations   map[string]int `json:"cancellations"`
	SellThrough     []curvePoint   `json:"sell_through"`
	SoldOutAt       *time.Time     `json:"sold_out_at"`
	TimeToSellOutMs *int64         `json:"time_to_sell_out_ms"`
	Room            *roomFigures   `json:"room"`
	Shed            int64          `json:"shed"`
	RateLimited     int64          `json:"rate_limited"`
}

type curvePoint struct {
	T    time.Time `json:"t"`
	Sold int       `json:"sold"`
}

type roomFigures struct {
	Joins, Admissions, Purchases, Abandoned int64
}

func (s *server) report(tb testing.TB, id int64) saleReport {
	tb.Helper()
	r := s.call(tb, "GET", "/api/v1/admin/items/"+itoa(id)+"/report", adminToken, nil)
	if r.status != 200 {
		tb.Fatalf("report: %d %s", r.status, r.raw)
	}
	var out saleReport
	if err := json.Unmarshal([]byte(r.raw), &out); err != nil {
		tb.Fatalf("report: %v in %s", err, r.raw)
	}
	return out
}

// reportOnceCounted waits until the servers' counters have reached MySQL
// (they flush every 2 s) and the report shows want's counted figures.
func (s *server) reportOnceCounted(tb testing.TB, id int64, counted func(saleReport) bool) saleReport {
	tb.Helper()
	var got saleReport
	if !testenv.Eventually(15*time.Second, func() bool { got = s.report(tb, id); return counted(got) }) {
		tb.Fatalf("counters never reached the report: %+v", got)
	}
	return got
}

// dropRedisKeys deletes every key of the test's prefix, as retiring a sale
// does with its keys.
func dropRedisKeys(tb testing.TB, s *server) {
	tb.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: s.cfg.Redis.Addr})
	defer rdb.Close()
	ctx := context.Background()
	iter := rdb.Scan(ctx, 0, s.cfg.RedisPrefix+"*", 500).Iterator()
	n := 0
	for iter.Next(ctx) {
		if err := rdb.Del(ctx, iter.Val()).Err(); err != nil {
			tb.Fatal(err)
		}
		n++
	}
	if iter.Err() != nil || n == 0 {
		tb.Fatalf("drop redis keys: %v (%d deleted)", iter.Err(), n)
	}
}

// TestSaleReport runs a sale on the test's clock: three purchases sell it
// out 3 s after the opening, a shopper cancels, a fourth shopper buys the
// unit back, two orders are paid and the last unpaid one times out, and a
// greedy shopper is rate limited before the opening. The report shows
// exactly that, and the same once the sale's Redis keys are gone.
func TestSaleReport(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk, func(c *config.Config) {
		c.RateShopper = ratelimit.Rate{PerSecond: 0.001, Burst: 3}
		c.RateIP = ratelimit.Rate{PerSecond: 10000, Burst: 10000}
		c.PaymentTimeout = 5 * time.Minute
	})
	opens := t0.Add(time.Minute)
	id := s.sale(t, 3, 1, opens, opens.Add(time.Hour))
	buyPath := "/api/v1/items/" + itoa(id) + "/purchase"

	greedy, limited := mintToken(t, "greedy"), int64(0)
	for range 8 {
		r := s.call(t, "POST", buyPath, greedy, nil)
		switch r.status {
		case 429:
			limited++
		case 403: // not_started
		default:
			t.Fatalf("purchase before the opening: %d %s", r.status, r.raw)
		}
	}
	if limited == 0 {
		t.Fatal("no purchase was rate limited")
	}

	tokens := map[string]string{}
	buy := func(who string, at time.Duration) string {
		clk.Set(opens.Add(at))
		tokens[who] = mintToken(t, who)
		r := s.call(t, "POST", buyPath, tokens[who], nil)
		check(t, r, want{202, "", ""})
		return r.str("order_id")
	}
	orderOf := map[string]string{}
	for i, who := range []string{"alice", "bob", "carol"} {
		orderOf[who] = buy(who, time.Duration(i+1)*time.Second)
	}
	s.settle(t, id)
	clk.Set(opens.Add(4 * time.Second))
	check(t, s.call(t, "POST", "/api/v1/orders/"+orderOf["bob"]+"/cancel", tokens["bob"], nil), want{200, "", ""})
	orderOf["dave"] = buy("dave", 5*time.Second)
	s.settle(t, id)
	for _, who := range []string{"alice", "dave"} {
		check(t, s.call(t, "POST", "/api/v1/orders/"+orderOf[who]+"/pay", tokens[who], nil), want{200, "", ""})
	}
	clk.Set(opens.Add(10 * time.Minute)) // carol's order is past the payment timeout
	testenv.WaitFor(t, 10*time.Second, func() bool {
		return s.report(t, id).Cancellations["timeout"] == 1
	}, "carol's unpaid order never timed out")

	soldOut, ms := opens.Add(3*time.Second), int64(3000)
	want := saleReport{ItemID: id, Status: "ended", StockTotal: 3, Sold: 2,
		OrdersByStatus: map[string]int{"confirmed": 0, "paid": 2, "cancelled": 2},
		Cancellations:  map[string]int{"shopper": 1, "timeout": 1},
		SoldOutAt:      &soldOut, TimeToSellOutMs: &ms, RateLimited: limited}
	clk.Set(opens.Add(2 * time.Hour))
	got := s.reportOnceCounted(t, id, func(r saleReport) bool { return r.RateLimited == limited })
	checkReport(t, got, want, opens)

	dropRedisKeys(t, s)
	checkReport(t, s.report(t, id), want, opens)
}

// checkReport compares the figures, and checks the curve: it starts at the
// opening at zero, climbs to the whole stock by the sell-out, and ends at
// what was sold.
func checkReport(t *testing.T, got, want saleReport, opens time.Time) {
	t.Helper()
	curve := got.SellThrough
	got.SellThrough = nil
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("report:\n got %s\nwant %s", mustJSON(got), mustJSON(want))
	}
	if len(curve) < 2 || len(curve) > 201 || !curve[0].T.Equal(opens) || curve[0].Sold != 0 {
		t.Fatalf("curve: %+v", curve)
	}
	if last := curve[len(curve)-1]; last.Sold != want.Sold {
		t.Fatalf("curve ends at %+v, want %d sold", last, want.Sold)
	}
	peak := 0
	for i, p := range curve {
		peak = max(peak, p.Sold)
		if i > 0 && !p.T.After(curve[i-1].T) {
			t.Fatalf("curve not in time order at %d: %+v", i, curve)
		}
	}
	if peak != want.StockTotal {
		t.Fatalf("curve peaks at %d, want %d: %+v", peak, want.StockTotal, curve)
	}
}

// TestRoomReport: three shoppers join a waiting room of two units that
// admits one a second; two are admitted, one buys, the other never does.
// The report counts the room's joins and admissions from the servers'
// counters, the purchase and the abandonment from MySQL, and keeps them once
// the Redis keys are gone.
func TestRoomReport(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk)
	opens := t0.Add(time.Minute)
	id := roomSale(t, s, 2, 1, opens)
	roomPath := "/api/v1/items/" + itoa(id) + "/room"
	toks := []string{mintToken(t, "pat"), mintToken(t, "quinn"), mintToken(t, "rey")}
	for _, tok := range toks {
		if r := s.join(t, id, tok); r.status != 200 || r.str("state") != "waiting" {
			t.Fatalf("join: %d %s", r.status, r.raw)
		}
	}
	clk.Set(opens.Add(1500 * time.Millisecond)) // two admissions due: at the opening and a second later
	var admitted []string
	testenv.WaitFor(t, 10*time.Second, func() bool {
		admitted = admitted[:0]
		for _, tok := range toks {
			if s.call(t, "GET", roomPath, tok, nil).str("state") == "admitted" {
				admitted = append(admitted, tok)
			}
		}
		return len(admitted) == 2
	}, "two shoppers admitted")
	buyAdmitted(t, s, id, roomPath, admitted[0])
	s.settle(t, id)

	got := s.reportOnceCounted(t, id, func(r saleReport) bool {
		return r.Room != nil && r.Room.Joins == 3 && r.Room.Admissions == 2
	})
	want := roomFigures{Joins: 3, Admissions: 2, Purchases: 1, Abandoned: 1}
	if !reflect.DeepEqual(&want, got.Room) || got.Sold != 1 || got.SoldOutAt != nil {
		t.Fatalf("room report: %s, want room %+v", mustJSON(got), want)
	}
	dropRedisKeys(t, s)
	if got := s.report(t, id).Room; !reflect.DeepEqual(&want, got) {
		t.Fatalf("room report without Redis: %+v, want %+v", got, want)
	}
}
