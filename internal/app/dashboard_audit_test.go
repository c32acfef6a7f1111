package app_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestDashboardKeepsStockWhenAuditFails: with the audit table out of reach,
// the dashboard stream still shows live stock, carrying the last audit head
// it read; the failure is logged once for the whole streak, and the head
// moves again once the table is back.
func TestDashboardKeepsStockWhenAuditFails(t *testing.T) {
	t.Parallel()
	var buf lockedBuffer
	s := startLogged(t, newClock(t0), slog.New(slog.NewJSONHandler(&buf, nil)))
	id := s.sale(t, 5, 1, t0, t0.Add(time.Hour))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := watch(t, ctx, s)
	first := next(t, events, "a snapshot with the sale and an audit head", func(s snapshot) bool {
		return len(s.Rows) == 1 && s.AuditHead > 0
	})

	if err := s.db.Gorm.Exec("RENAME TABLE audit_log TO audit_log_away").Error; err != nil {
		t.Fatal(err)
	}
	check(t, s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", s.login(t, "a"), nil), want{202, "", ""})
	sold := next(t, events, "the purchase on the dashboard", func(s snapshot) bool {
		return len(s.Rows) == 1 && s.Rows[0].Sold == 1
	})
	if sold.AuditHead != first.AuditHead {
		t.Fatalf("audit head with the table away = %d, want the last one read, %d", sold.AuditHead, first.AuditHead)
	}
	next(t, events, "another snapshot", func(snapshot) bool { return true })
	const failed = "dashboard: cannot read the audit head"
	if n := strings.Count(buf.String(), failed); n != 1 {
		t.Fatalf("%q logged %d times in one streak, want once:\n%s", failed, n, buf.String())
	}

	if err := s.db.Gorm.Exec("RENAME TABLE audit_log_away TO audit_log").Error; err != nil {
		t.Fatal(err)
	}
	check(t, s.call(t, "PATCH", "/api/v1/admin/items/"+itoa(id), adminToken, `{"price_cents":777}`), want{200, "", ""})
	next(t, events, "the audit head past the change", func(s snapshot) bool { return s.AuditHead > first.AuditHead })
	if !strings.Contains(buf.String(), "dashboard: the audit head is readable again") {
		t.Fatalf("the end of the streak was not logged:\n%s", buf.String())
	}
}

// next returns the first snapshot from events that ok accepts, failing the
// test if none comes within 10 s.
func next(tb testing.TB, events <-chan snapshot, what string, ok func(snapshot) bool) snapshot {
	tb.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case s, open := <-events:
			if !open {
				tb.Fatalf("the event stream ended before %s", what)
			}
			if ok(s) {
				return s
			}
		case <-deadline:
			tb.Fatalf("waited 10 s for %s in vain", what)
		}
	}
}
