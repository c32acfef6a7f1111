package payments

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestAdminCancelsAnOrder: an admin cancels any shopper's unpaid order,
// reason admin: its stock goes back on sale, the shop hears order.cancelled
// with reason admin, and the audit log records who did it. A paid order
// stays paid; a payment that arrives afterwards is to be refunded.
func TestAdminCancelsAnOrder(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0), e2etest.WithPayments(t))
	id := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	orders := e2etest.BuyConfirmed(t, s, id, "alice", "bob")
	cancel := func(auth, oid string) e2etest.Reply {
		return s.Call(t, "POST", "/api/v1/admin/orders/"+oid+"/cancel", auth, nil)
	}

	e2etest.Check(t, cancel("", orders[0]), e2etest.Want{Status: 401, Code: "unauthenticated"})
	e2etest.Check(t, cancel(e2etest.MintToken(t, "alice"), orders[0]), e2etest.Want{Status: 401, Code: "unauthenticated"})
	e2etest.Check(t, cancel(e2etest.AdminToken, "01JXXXXXXXXXXXXXXXXXXXXXXX"), e2etest.Want{Status: 404, Code: "order_not_found"})
	r := cancel(e2etest.AdminToken, orders[0])
	if r.Status != 200 || r.Str("status") != "cancelled" || r.Str("order_id") != orders[0] || r.Str("user_id") != "alice" {
		t.Fatalf("admin cancel: %d %s", r.Status, r.Raw)
	}
	evs := e2etest.OrderEvents(t, s, orders[0])
	if e2etest.EventTypes(evs) != "order.confirmed,order.cancelled" || evs[1].Data["reason"] != "admin" {
		t.Fatalf("events of the cancelled order: %+v; want one order.cancelled, reason admin", evs)
	}
	if st, reason := orderStatus(t, s, orders[0]); st != "cancelled" || reason != "admin" {
		t.Fatalf("order in MySQL: %s %s", st, reason)
	}
	if st := s.Stats(t, id); st.Body["consistent"] != true || e2etest.Num(st.Body, "stock_mysql") != 4 || e2etest.Num(st.Body, "orders_cancelled") != 1 {
		t.Fatalf("stock after the admin's cancel: %s", st.Raw)
	}

	entries := s.Audit(t, "").Entries
	if len(entries) == 0 || entries[0].Action != "order_cancel" || entries[0].ItemID == nil || *entries[0].ItemID != id ||
		entries[0].Actor != e2etest.Fingerprint("token", e2etest.AdminToken) {
		t.Fatalf("%d audit entries, the newest %s by %s; want order_cancel of sale %d by the admin token",
			len(entries), entries[0].Action, entries[0].Actor, id)
	}
	var before, after map[string]any
	if json.Unmarshal(entries[0].Before, &before) != nil || json.Unmarshal(entries[0].After, &after) != nil ||
		before["status"] != "confirmed" || after["status"] != "cancelled" || after["reason"] != "admin" || after["order_id"] != orders[0] {
		t.Fatalf("audit entry before %s, after %s", entries[0].Before, entries[0].After)
	}
	if again := cancel(e2etest.AdminToken, orders[0]); again.Status != 200 || again.Str("status") != "cancelled" {
		t.Fatalf("cancelling again must be harmless: %d %s", again.Status, again.Raw)
	}
	if n := len(s.Audit(t, "").Entries); n != len(entries) {
		t.Fatalf("cancelling a cancelled order was recorded: %d entries, want %d", n, len(entries))
	}

	e2etest.Outcome(t, s.Callback(t, e2etest.PaymentBody(orders[0], "paid", 12900, "pay_after_admin")), "refund_required", "cancelled")
	if got := e2etest.EventTypes(e2etest.OrderEvents(t, s, orders[0])); got != "order.confirmed,order.cancelled,payment.refund_required" {
		t.Fatalf("events of the admin-cancelled order after a late payment: %s", got)
	}
	e2etest.Outcome(t, s.Callback(t, e2etest.PaymentBody(orders[1], "paid", 12900, "pay_bob")), "paid", "paid")
	e2etest.Check(t, cancel(e2etest.AdminToken, orders[1]), e2etest.Want{Status: 409, Code: "order_paid"})
	if st, _ := orderStatus(t, s, orders[1]); st != "paid" {
		t.Fatalf("a refused admin cancel left the paid order %s", st)
	}
}
