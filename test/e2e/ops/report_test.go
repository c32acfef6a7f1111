package ops

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/ratelimit"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// dropRedisKeys deletes every key of the test's prefix, as retiring a sale
// does with its keys.
func dropRedisKeys(tb testing.TB, s *e2etest.Server) {
	tb.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: s.Cfg.Redis.Addr})
	defer rdb.Close()
	ctx := context.Background()
	iter := rdb.Scan(ctx, 0, s.Cfg.RedisPrefix+"*", 500).Iterator()
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
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk, func(c *config.Config) {
		c.RateShopper = ratelimit.Rate{PerSecond: 0.001, Burst: 3}
		c.RateIP = ratelimit.Rate{PerSecond: 10000, Burst: 10000}
		c.PaymentTimeout = 5 * time.Minute
	})
	opens := e2etest.T0.Add(time.Minute)
	id := s.Sale(t, 3, 1, opens, opens.Add(time.Hour))
	buyPath := "/api/v1/items/" + e2etest.Itoa(id) + "/purchase"

	greedy, limited := e2etest.MintToken(t, "greedy"), int64(0)
	for range 8 {
		r := s.Call(t, "POST", buyPath, greedy, nil)
		switch r.Status {
		case 429:
			limited++
		case 403: // not_started
		default:
			t.Fatalf("purchase before the opening: %d %s", r.Status, r.Raw)
		}
	}
	if limited == 0 {
		t.Fatal("no purchase was rate limited")
	}

	tokens := map[string]string{}
	buy := func(who string, at time.Duration) string {
		clk.Set(opens.Add(at))
		tokens[who] = e2etest.MintToken(t, who)
		r := s.Call(t, "POST", buyPath, tokens[who], nil)
		e2etest.Check(t, r, e2etest.Want{Status: 202})
		return r.Str("order_id")
	}
	orderOf := map[string]string{}
	for i, who := range []string{"alice", "bob", "carol"} {
		orderOf[who] = buy(who, time.Duration(i+1)*time.Second)
	}
	s.Settle(t, id)
	clk.Set(opens.Add(4 * time.Second))
	e2etest.Check(t, s.Call(t, "POST", "/api/v1/orders/"+orderOf["bob"]+"/cancel", tokens["bob"], nil), e2etest.Want{Status: 200})
	orderOf["dave"] = buy("dave", 5*time.Second)
	s.Settle(t, id)
	for _, who := range []string{"alice", "dave"} {
		e2etest.Check(t, s.Call(t, "POST", "/api/v1/orders/"+orderOf[who]+"/pay", tokens[who], nil), e2etest.Want{Status: 200})
	}
	clk.Set(opens.Add(10 * time.Minute)) // carol's order is past the payment timeout
	testenv.WaitFor(t, 10*time.Second, func() bool {
		return s.Report(t, id).Cancellations["timeout"] == 1
	}, "carol's unpaid order never timed out")

	soldOut, ms := opens.Add(3*time.Second), int64(3000)
	want := e2etest.SaleReport{ItemID: id, Status: "ended", StockTotal: 3, Sold: 2,
		OrdersByStatus: map[string]int{"confirmed": 0, "paid": 2, "cancelled": 2},
		Cancellations:  map[string]int{"shopper": 1, "timeout": 1},
		SoldOutAt:      &soldOut, TimeToSellOutMs: &ms, RateLimited: limited}
	clk.Set(opens.Add(2 * time.Hour))
	got := s.ReportOnceCounted(t, id, func(r e2etest.SaleReport) bool { return r.RateLimited == limited })
	checkReport(t, got, want, opens)

	dropRedisKeys(t, s)
	checkReport(t, s.Report(t, id), want, opens)
}

// checkReport compares the figures, and checks the curve: it starts at the
// opening at zero, climbs to the whole stock by the sell-out, and ends at
// what was sold.
func checkReport(t *testing.T, got, want e2etest.SaleReport, opens time.Time) {
	t.Helper()
	curve := got.SellThrough
	got.SellThrough = nil
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("report:\n got %s\nwant %s", e2etest.MustJSON(got), e2etest.MustJSON(want))
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
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk)
	opens := e2etest.T0.Add(time.Minute)
	id := e2etest.RoomSale(t, s, 2, 1, opens)
	roomPath := "/api/v1/items/" + e2etest.Itoa(id) + "/room"
	toks := []string{e2etest.MintToken(t, "pat"), e2etest.MintToken(t, "quinn"), e2etest.MintToken(t, "rey")}
	for _, tok := range toks {
		if r := s.Join(t, id, tok); r.Status != 200 || r.Str("state") != "waiting" {
			t.Fatalf("join: %d %s", r.Status, r.Raw)
		}
	}
	clk.Set(opens.Add(1500 * time.Millisecond)) // two admissions due: at the opening and a second later
	var admitted []string
	testenv.WaitFor(t, 10*time.Second, func() bool {
		admitted = admitted[:0]
		for _, tok := range toks {
			if s.Call(t, "GET", roomPath, tok, nil).Str("state") == "admitted" {
				admitted = append(admitted, tok)
			}
		}
		return len(admitted) == 2
	}, "two shoppers admitted")
	e2etest.BuyAdmitted(t, s, id, roomPath, admitted[0])
	s.Settle(t, id)

	got := s.ReportOnceCounted(t, id, func(r e2etest.SaleReport) bool {
		return r.Room != nil && r.Room.Joins == 3 && r.Room.Admissions == 2
	})
	want := e2etest.RoomFigures{Joins: 3, Admissions: 2, Purchases: 1, Abandoned: 1}
	if !reflect.DeepEqual(&want, got.Room) || got.Sold != 1 || got.SoldOutAt != nil {
		t.Fatalf("room report: %s, want room %+v", e2etest.MustJSON(got), want)
	}
	dropRedisKeys(t, s)
	if got := s.Report(t, id).Room; !reflect.DeepEqual(&want, got) {
		t.Fatalf("room report without Redis: %+v, want %+v", got, want)
	}
}
