package app_test

import (
	"encoding/json"
	"testing"
	"time"
)

// TestAdminCancelsAnOrder: an admin cancels any shopper's unpaid order,
// reason admin: its stock goes back on sale, the shop hears order.cancelled
// with reason admin, and the audit log records who did it. A paid order
// stays paid; a payment that arrives afterwards is to be refunded.
func TestAdminCancelsAnOrder(t *testing.T) {
	t.Parallel()
	s := start(t, newClock(t0), withPayments(t))
	id := s.sale(t, 5, 1, t0, t0.Add(time.Hour))
	orders := buyConfirmed(t, s, id, "alice", "bob")
	cancel := func(auth, oid string) reply {
		return s.call(t, "POST", "/api/v1/admin/orders/"+oid+"/cancel", auth, nil)
	}

	check(t, cancel("", orders[0]), want{401, "unauthenticated", ""})
	check(t, cancel(mintToken(t, "alice"), orders[0]), want{401, "unauthenticated", ""})
	check(t, cancel(adminToken, "01JXXXXXXXXXXXXXXXXXXXXXXX"), want{404, "order_not_found", ""})
	r := cancel(adminToken, orders[0])
	if r.status != 200 || r.str("status") != "cancelled" || r.str("order_id") != orders[0] || r.str("user_id") != "alice" {
		t.Fatalf("admin cancel: %d %s", r.status, r.raw)
	}
	evs := orderEvents(t, s, orders[0])
	if eventTypes(evs) != "order.confirmed,order.cancelled" || evs[1].Data["reason"] != "admin" {
		t.Fatalf("events of the cancelled order: %+v; want one order.cancelled, reason admin", evs)
	}
	if st, reason := orderStatus(t, s, orders[0]); st != "cancelled" || reason != "admin" {
		t.Fatalf("order in MySQL: %s %s", st, reason)
	}
	if st := s.stats(t, id); st.body["consistent"] != true || num(st.body, "stock_mysql") != 4 || num(st.body, "orders_cancelled") != 1 {
		t.Fatalf("stock after the admin's cancel: %s", st.raw)
	}

	entries := s.audit(t, "").Entries
	if len(entries) == 0 || entries[0].Action != "order_cancel" || entries[0].ItemID == nil || *entries[0].ItemID != id ||
		entries[0].Actor != fingerprint("token", adminToken) {
		t.Fatalf("%d audit entries, the newest %s by %s; want order_cancel of sale %d by the admin token",
			len(entries), entries[0].Action, entries[0].Actor, id)
	}
	var before, after map[string]any
	if json.Unmarshal(entries[0].Before, &before) != nil || json.Unmarshal(entries[0].After, &after) != nil ||
		before["status"] != "confirmed" || after["status"] != "cancelled" || after["reason"] != "admin" || after["order_id"] != orders[0] {
		t.Fatalf("audit entry before %s, after %s", entries[0].Before, entries[0].After)
	}
	if again := cancel(adminToken, orders[0]); again.status != 200 || again.str("status") != "cancelled" {
		t.Fatalf("cancelling again must be harmless: %d %s", again.status, again.raw)
	}
	if n := len(s.audit(t, "").Entries); n != len(entries) {
		t.Fatalf("cancelling a cancelled order was recorded: %d entries, want %d", n, len(entries))
	}

	outcome(t, s.callback(t, paymentBody(orders[0], "paid", 12900, "pay_after_admin")), "refund_required", "cancelled")
	if got := eventTypes(orderEvents(t, s, orders[0])); got != "order.confirmed,order.cancelled,payment.refund_required" {
		t.Fatalf("events of the admin-cancelled order after a late payment: %s", got)
	}
	outcome(t, s.callback(t, paymentBody(orders[1], "paid", 12900, "pay_bob")), "paid", "paid")
	check(t, cancel(adminToken, orders[1]), want{409, "order_paid", ""})
	if st, _ := orderStatus(t, s, orders[1]); st != "paid" {
		t.Fatalf("a refused admin cancel left the paid order %s", st)
	}
}
