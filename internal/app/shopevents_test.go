package app_test

import (
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/internal/webhook"
)

// about returns the types of the events taken whose data has key =
// value, in the order they came.
func (r *hookReceiver) about(key string, value any) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		if e.Data[key] == value {
			out = append(out, e.Type)
		}
	}
	return out
}

// first returns the data of the first event of type typ whose data has
// key = value.
func (r *hookReceiver) first(typ, key string, value any) map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.events {
		if e.Type == typ && e.Data[key] == value {
			return e.Data
		}
	}
	return nil
}

func (r *hookReceiver) await(t *testing.T, key string, value any, want ...string) {
	t.Helper()
	if !testenv.Eventually(10*time.Second, func() bool { return reflect.DeepEqual(r.about(key, value), want) }) {
		t.Fatalf("events about %s=%v: got %v, want %v", key, value, r.about(key, value), want)
	}
}

// acceptingReceiver is a receiver that takes every event.
func acceptingReceiver(tb testing.TB) *hookReceiver {
	r := newHookReceiver(tb)
	r.status.Store(http.StatusOK)
	return r
}

// TestEventsTellTheShop follows a sale from the shop's receiver: orders
// confirmed, paid and cancelled, the sell-out, pause, resume and the end,
// each once, in order per order and per sale, showing what the API shows.
func TestEventsTellTheShop(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	sink := acceptingReceiver(t)
	s := start(t, clk, hooksTo(sink, 0))
	id := s.sale(t, 2, 1, t0, t0.Add(time.Hour))
	orders := buyConfirmed(t, s, id, "alice", "bob")
	alice, bob := mintToken(t, "alice"), mintToken(t, "bob")
	if r := s.call(t, "POST", "/api/v1/orders/"+orders[0]+"/pay", alice, nil); r.status != 200 {
		t.Fatalf("pay: %d %s", r.status, r.raw)
	}
	if r := s.call(t, "POST", "/api/v1/orders/"+orders[1]+"/cancel", bob, nil); r.status != 200 {
		t.Fatalf("cancel: %d %s", r.status, r.raw)
	}
	for _, action := range []string{"pause", "resume", "end"} {
		if r := s.call(t, "POST", "/api/v1/admin/items/"+itoa(id)+"/"+action, adminToken, nil); r.status != 200 {
			t.Fatalf("%s: %d %s", action, r.status, r.raw)
		}
	}
	sink.await(t, "order_id", orders[0], webhook.OrderConfirmed, webhook.OrderPaid)
	sink.await(t, "order_id", orders[1], webhook.OrderConfirmed, webhook.OrderCancelled)
	sink.await(t, "id", float64(id), webhook.SaleSoldOut, webhook.SalePaused, webhook.SaleResumed, webhook.SaleEnded)

	// An event's order is the order as GET /orders/{id} showed it then.
	got := sink.first(webhook.OrderPaid, "order_id", orders[0])
	api := s.call(t, "GET", "/api/v1/orders/"+orders[0], alice, nil)
	for k, v := range api.body {
		if !reflect.DeepEqual(got[k], v) {
			t.Errorf("order.paid data %s = %v; the API shows %v", k, got[k], v)
		}
	}
	if got["amount_cents"] != 12900.0 {
		t.Errorf("order.paid amount_cents = %v, want 12900", got["amount_cents"])
	}
	if c := sink.first(webhook.OrderConfirmed, "order_id", orders[1]); c["status"] != "confirmed" {
		t.Errorf("order.confirmed shows status %v", c["status"])
	}
	if c := sink.first(webhook.OrderCancelled, "order_id", orders[1]); c["status"] != "cancelled" || c["reason"] != "shopper" {
		t.Errorf("order.cancelled shows status %v, reason %v", c["status"], c["reason"])
	}
	if so := sink.first(webhook.SaleSoldOut, "id", float64(id)); so["stock_left"] != 0.0 || so["name"] != "Aurora sneakers, limited run" {
		t.Errorf("sale.sold_out shows %v", so)
	}
	if p := sink.first(webhook.SalePaused, "id", float64(id)); p["paused"] != true {
		t.Errorf("sale.paused shows paused = %v", p["paused"])
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if sink.forged != 0 {
		t.Errorf("%d deliveries with a bad signature", sink.forged)
	}
}

// TestSaleEndedByTheClockIsAnnouncedOnce: a sale that reaches its end is
// announced by the fleet's job, once, however many servers run it; moving
// the end into the future and past it again is a new end.
func TestSaleEndedByTheClockIsAnnouncedOnce(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	sink := acceptingReceiver(t)
	s := start(t, clk, hooksTo(sink, 0))
	s.twin(t, clk)
	id := s.sale(t, 5, 1, t0, t0.Add(time.Minute))
	clk.Add(2 * time.Minute)
	sink.await(t, "id", float64(id), webhook.SaleEnded)
	later := clk.Now().Add(time.Minute)
	if r := s.call(t, "PATCH", "/api/v1/admin/items/"+itoa(id), adminToken, map[string]any{"ends_at": later.Format(time.RFC3339Nano)}); r.status != 200 {
		t.Fatalf("reopen: %d %s", r.status, r.raw)
	}
	clk.Add(2 * time.Minute)
	sink.await(t, "id", float64(id), webhook.SaleEnded, webhook.SaleEnded)
	// The job runs every 100 ms in tests: a second announcement would come
	// within a few runs. A fresh sale ending proves the job ran since.
	other := s.sale(t, 1, 1, clk.Now(), clk.Now().Add(time.Second))
	clk.Add(time.Minute)
	sink.await(t, "id", float64(other), webhook.SaleEnded)
	if got := sink.about("id", float64(id)); len(got) != 2 {
		t.Fatalf("sale %d announced %v", id, got)
	}
}
