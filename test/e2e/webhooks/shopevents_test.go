package webhooks

import (
	"reflect"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/webhook"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestEventsTellTheShop follows a sale from the shop's receiver: orders
// confirmed, paid and cancelled, the sell-out, pause, resume and the end,
// each once, in order per order and per sale, showing what the API shows.
func TestEventsTellTheShop(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	sink := e2etest.AcceptingReceiver(t)
	s := e2etest.Start(t, clk, e2etest.HooksTo(sink, 0))
	id := s.Sale(t, 2, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	orders := e2etest.BuyConfirmed(t, s, id, "alice", "bob")
	alice, bob := e2etest.MintToken(t, "alice"), e2etest.MintToken(t, "bob")
	if r := s.Call(t, "POST", "/api/v1/orders/"+orders[0]+"/pay", alice, nil); r.Status != 200 {
		t.Fatalf("pay: %d %s", r.Status, r.Raw)
	}
	if r := s.Call(t, "POST", "/api/v1/orders/"+orders[1]+"/cancel", bob, nil); r.Status != 200 {
		t.Fatalf("cancel: %d %s", r.Status, r.Raw)
	}
	for _, action := range []string{"pause", "resume", "end"} {
		if r := s.Call(t, "POST", "/api/v1/admin/items/"+e2etest.Itoa(id)+"/"+action, e2etest.AdminToken, nil); r.Status != 200 {
			t.Fatalf("%s: %d %s", action, r.Status, r.Raw)
		}
	}
	sink.Await(t, "order_id", orders[0], webhook.OrderConfirmed, webhook.OrderPaid)
	sink.Await(t, "order_id", orders[1], webhook.OrderConfirmed, webhook.OrderCancelled)
	sink.Await(t, "id", float64(id), webhook.SaleSoldOut, webhook.SalePaused, webhook.SaleResumed, webhook.SaleEnded)

	// An event's order is the order as GET /orders/{id} showed it then.
	got := sink.First(webhook.OrderPaid, "order_id", orders[0])
	api := s.Call(t, "GET", "/api/v1/orders/"+orders[0], alice, nil)
	for k, v := range api.Body {
		if !reflect.DeepEqual(got[k], v) {
			t.Errorf("order.paid data %s = %v; the API shows %v", k, got[k], v)
		}
	}
	if got["amount_cents"] != 12900.0 {
		t.Errorf("order.paid amount_cents = %v, want 12900", got["amount_cents"])
	}
	if c := sink.First(webhook.OrderConfirmed, "order_id", orders[1]); c["status"] != "confirmed" {
		t.Errorf("order.confirmed shows status %v", c["status"])
	}
	if c := sink.First(webhook.OrderCancelled, "order_id", orders[1]); c["status"] != "cancelled" || c["reason"] != "shopper" {
		t.Errorf("order.cancelled shows status %v, reason %v", c["status"], c["reason"])
	}
	if so := sink.First(webhook.SaleSoldOut, "id", float64(id)); so["stock_left"] != 0.0 || so["name"] != "Aurora sneakers, limited run" {
		t.Errorf("sale.sold_out shows %v", so)
	}
	if p := sink.First(webhook.SalePaused, "id", float64(id)); p["paused"] != true {
		t.Errorf("sale.paused shows paused = %v", p["paused"])
	}
	sink.Mu.Lock()
	defer sink.Mu.Unlock()
	if sink.Forged != 0 {
		t.Errorf("%d deliveries with a bad signature", sink.Forged)
	}
}

// TestSaleEndedByTheClockIsAnnouncedOnce: a sale that reaches its end is
// announced by the fleet's job, once, however many servers run it; moving
// the end into the future and past it again is a new end.
func TestSaleEndedByTheClockIsAnnouncedOnce(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	sink := e2etest.AcceptingReceiver(t)
	s := e2etest.Start(t, clk, e2etest.HooksTo(sink, 0))
	s.Twin(t, clk)
	id := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Minute))
	clk.Add(2 * time.Minute)
	sink.Await(t, "id", float64(id), webhook.SaleEnded)
	later := clk.Now().Add(time.Minute)
	if r := s.Call(t, "PATCH", "/api/v1/admin/items/"+e2etest.Itoa(id), e2etest.AdminToken, map[string]any{"ends_at": later.Format(time.RFC3339Nano)}); r.Status != 200 {
		t.Fatalf("reopen: %d %s", r.Status, r.Raw)
	}
	clk.Add(2 * time.Minute)
	sink.Await(t, "id", float64(id), webhook.SaleEnded, webhook.SaleEnded)
	// The job runs every 100 ms in tests: a second announcement would come
	// within a few runs. A fresh sale ending proves the job ran since.
	other := s.Sale(t, 1, 1, clk.Now(), clk.Now().Add(time.Second))
	clk.Add(time.Minute)
	sink.Await(t, "id", float64(other), webhook.SaleEnded)
	if got := sink.About("id", float64(id)); len(got) != 2 {
		t.Fatalf("sale %d announced %v", id, got)
	}
}
