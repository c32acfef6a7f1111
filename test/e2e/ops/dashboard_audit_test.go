package ops

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestDashboardKeepsStockWhenAuditFails: with the audit table out of reach,
// the dashboard stream still shows live stock, carrying the last audit head
// it read; the failure is logged once for the whole streak, and the head
// moves again once the table is back.
func TestDashboardKeepsStockWhenAuditFails(t *testing.T) {
	t.Parallel()
	var buf e2etest.LockedBuffer
	s := e2etest.StartLogged(t, e2etest.NewClock(e2etest.T0), slog.New(slog.NewJSONHandler(&buf, nil)))
	id := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := e2etest.Watch(t, ctx, s)
	first := next(t, events, "a snapshot with the sale and an audit head", func(s e2etest.Snapshot) bool {
		return len(s.Rows) == 1 && s.AuditHead > 0
	})

	if err := s.Db.Gorm.Exec("RENAME TABLE audit_log TO audit_log_away").Error; err != nil {
		t.Fatal(err)
	}
	e2etest.Check(t, s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", s.Login(t, "a"), nil), e2etest.Want{Status: 202})
	sold := next(t, events, "the purchase on the dashboard", func(s e2etest.Snapshot) bool {
		return len(s.Rows) == 1 && s.Rows[0].Sold == 1
	})
	if sold.AuditHead != first.AuditHead {
		t.Fatalf("audit head with the table away = %d, want the last one read, %d", sold.AuditHead, first.AuditHead)
	}
	next(t, events, "another snapshot", func(e2etest.Snapshot) bool { return true })
	const failed = "dashboard: cannot read the audit head"
	if n := strings.Count(buf.String(), failed); n != 1 {
		t.Fatalf("%q logged %d times in one streak, want once:\n%s", failed, n, buf.String())
	}

	if err := s.Db.Gorm.Exec("RENAME TABLE audit_log_away TO audit_log").Error; err != nil {
		t.Fatal(err)
	}
	e2etest.Check(t, s.Call(t, "PATCH", "/api/v1/admin/items/"+e2etest.Itoa(id), e2etest.AdminToken, `{"price_cents":777}`), e2etest.Want{Status: 200})
	next(t, events, "the audit head past the change", func(s e2etest.Snapshot) bool { return s.AuditHead > first.AuditHead })
	if !strings.Contains(buf.String(), "dashboard: the audit head is readable again") {
		t.Fatalf("the end of the streak was not logged:\n%s", buf.String())
	}
}

// next returns the first snapshot from events that ok accepts, failing the
// test if none comes within 10 s.
func next(tb testing.TB, events <-chan e2etest.Snapshot, what string, ok func(e2etest.Snapshot) bool) e2etest.Snapshot {
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
