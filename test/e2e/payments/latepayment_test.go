package payments

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// raceOrder is one order of the late-payment race and what its payment
// callbacks were answered.
type raceOrder struct {
	ID, User  string
	VariantID int64
	Quantity  int
	answers   []string // outcomes, one per callback sent
}

// TestLatePaymentRace races, for each of 300 overdue orders, the payment
// provider's callback against the payment-timeout sweeper (some orders get
// the same callback twice at once, as providers retry). Every order must
// end exactly one way: paid, with one order.paid and nothing else after
// it; or cancelled for the payment timeout, with one order.cancelled and
// one payment.refund_required. The stock of both stores must stay right,
// and both ways must occur, or the race was not run.
func TestLatePaymentRace(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk, e2etest.WithPayments(t), func(c *config.Config) {
		c.PaymentTimeout, c.SweepEvery = 10*time.Minute, 10*time.Millisecond
	})
	const n = 300
	created := s.Call(t, "POST", "/api/v1/admin/items", e2etest.AdminToken,
		e2etest.DropBody(e2etest.T0, e2etest.Size("EU 41", 300), e2etest.Size("EU 42", 300, "price_cents", 15900)))
	if created.Status != 201 {
		t.Fatalf("create drop: %s", created.Raw)
	}
	id, sizes := int64(e2etest.Num(created.Body, "id")), e2etest.VariantIDs(t, created)
	orders := buyRaceOrders(t, s, id, []int64{sizes["EU 41"], sizes["EU 42"]}, n)
	price := map[int64]int64{sizes["EU 41"]: 12900, sizes["EU 42"]: 15900}

	// Every order is overdue from now: the sweeper, running every 10ms,
	// cancels them oldest first. The callbacks start once it has cancelled
	// one, and come in a random order: some find their order cancelled,
	// some pay orders the sweeper has listed but not reached.
	clk.Add(10*time.Minute + time.Second)
	testenv.WaitFor(t, 10*time.Second, func() bool {
		var cancelled int64
		if err := s.Db.Gorm.Raw("SELECT COUNT(*) FROM orders WHERE status = 'cancelled'").Scan(&cancelled).Error; err != nil {
			t.Fatal(err)
		}
		return cancelled > 0
	}, "the sweeper cancelled no overdue order")
	var wg sync.WaitGroup
	var mu sync.Mutex
	work := make(chan int)
	for range 4 {
		wg.Go(func() {
			for i := range work {
				o := orders[i]
				body := e2etest.PaymentBody(o.ID, "paid", price[o.VariantID]*int64(o.Quantity), "pay_"+o.ID)
				r := s.Callback(t, body)
				mu.Lock()
				o.answers = append(o.answers, r.Str("outcome"))
				mu.Unlock()
				if r.Status != 200 {
					t.Errorf("callback of %s: %d %s", o.ID, r.Status, r.Raw)
				}
			}
		})
	}
	for _, i := range rand.Perm(n) {
		work <- i
		if i%10 == 0 {
			work <- i // a retry, racing the first
		}
	}
	close(work)
	wg.Wait()

	var st e2etest.Reply
	testenv.WaitFor(t, 20*time.Second, func() bool { st = s.Stats(t, id); return e2etest.Num(st.Body, "orders_confirmed") == 0 },
		"orders neither paid nor cancelled 20s after the race: %s", st.Raw)
	paid, refunded := checkRaceOrders(t, s, orders)
	t.Logf("%d orders paid, %d cancelled by the timeout and refunded", paid, refunded)
	if paid == 0 || refunded == 0 {
		t.Errorf("%d paid, %d refunded: the callbacks and the sweeper did not race", paid, refunded)
	}
	// A cancel gives its units back in Redis just after MySQL commits it.
	if !testenv.Eventually(20*time.Second, func() bool { st = s.Stats(t, id); return st.Body["consistent"] == true }) {
		t.Errorf("the stores disagree 20s after the race: %s", st.Raw)
	}
	checkRaceStock(t, s, id, st)
}

// buyRaceOrders has n shoppers buy one or two units of the variants in
// turn and waits until every order is in MySQL.
func buyRaceOrders(t *testing.T, s *e2etest.Server, id int64, variants []int64, n int) []*raceOrder {
	t.Helper()
	orders := make([]*raceOrder, n)
	var wg sync.WaitGroup
	work := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range work {
				o := &raceOrder{User: "racer" + strconv.Itoa(i), VariantID: variants[i%len(variants)], Quantity: 1 + i/2%2}
				body := `{"variant_id":` + e2etest.Itoa(o.VariantID) + `,"quantity":` + strconv.Itoa(o.Quantity) + `}`
				r := s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", e2etest.MintToken(t, o.User), body)
				if r.Status != 202 {
					t.Errorf("purchase of %s: %d %s", o.User, r.Status, r.Raw)
				}
				o.ID, orders[i] = r.Str("order_id"), o
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	s.Settle(t, id)
	return orders
}

// checkRaceOrders checks each order's end against its answers, its events
// and its payments, and counts the two ways.
func checkRaceOrders(t *testing.T, s *e2etest.Server, orders []*raceOrder) (paid, refunded int) {
	t.Helper()
	events := raceEvents(t, s)
	var payments []struct{ OrderID, Outcome string }
	if err := s.Db.Gorm.Raw("SELECT order_id, outcome FROM payments").Scan(&payments).Error; err != nil {
		t.Fatal(err)
	}
	recorded := map[string][]string{}
	for _, p := range payments {
		recorded[p.OrderID] = append(recorded[p.OrderID], p.Outcome)
	}
	for _, o := range orders {
		status, reason := orderStatus(t, s, o.ID)
		evs := events[o.ID]
		var want, wantEvents string
		switch {
		case status == "paid":
			paid++
			want, wantEvents = "paid", "order.confirmed,order.paid"
		case status == "cancelled" && reason == "timeout":
			refunded++
			want, wantEvents = "refund_required", "order.confirmed,order.cancelled,payment.refund_required"
		default:
			t.Errorf("order %s ended %s (%s): want paid, or cancelled for the payment timeout", o.ID, status, reason)
			continue
		}
		for _, a := range o.answers {
			if a != want {
				t.Errorf("order %s is %s, its callbacks were answered %v", o.ID, status, o.answers)
			}
		}
		if got := e2etest.EventTypes(evs); got != wantEvents {
			t.Errorf("order %s is %s with events %s; want %s", o.ID, status, got, wantEvents)
		} else if want == "refund_required" && (evs[1].Data["reason"] != "payment_timeout" || evs[2].Data["refund_reason"] != "order_cancelled") {
			t.Errorf("order %s: cancelled %v, refund %v", o.ID, evs[1].Data, evs[2].Data)
		}
		if r := recorded[o.ID]; len(r) != 1 || r[0] != want {
			t.Errorf("order %s is %s; payments recorded %v", o.ID, status, r)
		}
	}
	return paid, refunded
}

// raceEvents are the events written about each order, by order id, in
// the order they are delivered.
func raceEvents(t *testing.T, s *e2etest.Server) map[string][]e2etest.Event {
	t.Helper()
	var rows []struct{ Subject, Body string }
	if err := s.Db.Gorm.Raw("SELECT subject, body FROM outbox WHERE subject LIKE 'order:%' ORDER BY seq").Scan(&rows).Error; err != nil {
		t.Fatal(err)
	}
	out := map[string][]e2etest.Event{}
	for _, r := range rows {
		var e e2etest.Event
		if err := json.Unmarshal([]byte(r.Body), &e); err != nil {
			t.Fatalf("outbox body %s: %v", r.Body, err)
		}
		id := strings.TrimPrefix(r.Subject, "order:")
		out[id] = append(out[id], e)
	}
	return out
}

// checkRaceStock: in MySQL each variant's and the sale's stock is its
// stock_total less the units of the orders still active, none oversold;
// Redis agrees (st: the stats once the stores were consistent).
func checkRaceStock(t *testing.T, s *e2etest.Server, id int64, st e2etest.Reply) {
	t.Helper()
	var active []struct {
		VariantID int64
		Units     int
	}
	err := s.Db.Gorm.Raw("SELECT variant_id, SUM(quantity) AS units FROM orders WHERE item_id = ? AND status <> 'cancelled' GROUP BY variant_id", id).
		Scan(&active).Error
	if err != nil {
		t.Fatal(err)
	}
	held, all := map[int64]int{}, 0
	for _, a := range active {
		held[a.VariantID], all = a.Units, all+a.Units
	}
	var vs []struct {
		ID                int64
		StockTotal, Stock int
	}
	if err := s.Db.Gorm.Raw("SELECT id, stock_total, stock FROM variants WHERE item_id = ?", id).Scan(&vs).Error; err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if v.Stock != v.StockTotal-held[v.ID] || held[v.ID] > v.StockTotal {
			t.Errorf("variant %d: stock %d of %d with %d units held", v.ID, v.Stock, v.StockTotal, held[v.ID])
		}
	}
	var item struct{ StockTotal, Stock int }
	if err := s.Db.Gorm.Raw("SELECT stock_total, stock FROM items WHERE id = ?", id).Scan(&item).Error; err != nil {
		t.Fatal(err)
	}
	if item.Stock != item.StockTotal-all || e2etest.Num(st.Body, "stock_redis") != item.Stock || st.Body["consistent"] != true {
		t.Errorf("sale: MySQL stock %d of %d with %d units held; stats %s", item.Stock, item.StockTotal, all, st.Raw)
	}
	if r := s.Call(t, "GET", "/api/v1/admin/reconcile", e2etest.AdminToken, nil); r.Status != 200 || r.Body["consistent"] != true {
		t.Errorf("reconcile check after the race: %d %s", r.Status, r.Raw)
	}
}
