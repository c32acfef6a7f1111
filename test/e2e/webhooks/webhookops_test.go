package webhooks

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/internal/webhook"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

func outboxStat(r e2etest.Reply, k string) float64 {
	return r.Body["stats"].(map[string]any)[k].(float64)
}

// A receiver that keeps answering 500 makes both events of a sale fail for
// good once their give-up time passes: the admin API lists them with the
// receiver's answer and the endpoint without its password, and so do the
// metrics. Re-sent once the receiver is fixed, each reaches it, leaves the
// failed list and is recorded in the audit log; what is not failed, or not
// there, is refused.
func TestWebhookFailuresListedAndResent(t *testing.T) {
	t.Parallel()
	recv := e2etest.NewHookReceiver(t)
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0), e2etest.HooksTo(recv, time.Second))
	id := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	s.PauseAndResume(t, id)

	var failed []map[string]any
	var r e2etest.Reply
	testenv.WaitFor(t, 15*time.Second, func() bool {
		failed, r = s.Deliveries(t, "?state=failed")
		return len(failed) == 2
	}, "the events never failed: %s", r.Raw)
	if strings.Contains(r.Raw, "hook-password") {
		t.Fatalf("the list shows the endpoint's password: %s", r.Raw)
	}
	wantEndpoint := webhook.Redact(recv.URL())
	for i, typ := range []string{webhook.SaleResumed, webhook.SalePaused} { // newest first
		d := failed[i]
		if d["type"] != typ || d["state"] != "failed" || d["endpoint"] != wantEndpoint || d["subject"] != "sale:"+e2etest.Itoa(id) ||
			d["last_status"] != 500.0 || !strings.Contains(d["last_error"].(string), "500") || d["attempts"].(float64) < 1 ||
			d["delivered_at"] != nil || d["event"] != nil {
			t.Errorf("failed delivery %d = %v", i, d)
		}
	}
	if got := r.Body["endpoints"].([]any); len(got) != 1 || got[0] != wantEndpoint {
		t.Errorf("endpoints = %v, want [%s]", got, wantEndpoint)
	}
	if outboxStat(r, "failed") != 2 || outboxStat(r, "pending") != 0 || outboxStat(r, "oldest_pending_seconds") != 0 {
		t.Errorf("stats = %v, want 2 failed, nothing pending", r.Body["stats"])
	}
	if v := e2etest.Series(t, s, "seckill_webhook_outbox_failed"); v != 2 {
		t.Errorf("seckill_webhook_outbox_failed = %v, want 2", v)
	}
	if v := e2etest.Series(t, s, `seckill_webhook_deliveries_total{result="failed"}`); v != 2 {
		t.Errorf(`deliveries_total{result="failed"} = %v, want 2`, v)
	}

	resumed, paused := failed[0], failed[1]
	seqOf := func(d map[string]any) string { return e2etest.Itoa(int64(d["seq"].(float64))) }
	one := s.Call(t, "GET", "/api/v1/admin/webhooks/"+seqOf(paused), e2etest.AdminToken, nil)
	ev, _ := one.Body["event"].(map[string]any)
	if one.Status != 200 || ev["id"] != paused["event_id"] || ev["type"] != webhook.SalePaused || one.Str("endpoint") != wantEndpoint {
		t.Fatalf("one delivery: %d %s", one.Status, one.Raw)
	}

	recv.Status.Store(http.StatusNoContent)
	for _, d := range []map[string]any{paused, resumed} {
		r := s.Call(t, "POST", "/api/v1/admin/webhooks/"+seqOf(d)+"/resend", e2etest.AdminToken, nil)
		// Delivered already, if the dispatcher was that quick.
		if r.Status != 200 || r.Str("state") == "failed" || r.Str("event_id") != d["event_id"] {
			t.Fatalf("resend: %d %s", r.Status, r.Raw)
		}
		if giveUp, _ := time.Parse(time.RFC3339Nano, r.Str("give_up_at")); giveUp.Before(time.Now()) && r.Str("state") == "pending" {
			t.Errorf("re-sent with no time left to retry: %s", r.Raw)
		}
	}
	for _, d := range []map[string]any{paused, resumed} {
		id := d["event_id"].(string)
		testenv.WaitFor(t, 10*time.Second, func() bool { return recv.Got(id) == d["type"] }, "the receiver never got %s", id)
	}
	testenv.WaitFor(t, 5*time.Second, func() bool {
		failed, r = s.Deliveries(t, "?state=failed")
		return len(failed) == 0 && outboxStat(r, "failed") == 0
	}, "the re-sent deliveries are still listed failed: %s", r.Raw)
	if v := e2etest.Series(t, s, "seckill_webhook_outbox_failed"); v != 0 {
		t.Errorf("seckill_webhook_outbox_failed = %v after the re-sends, want 0", v)
	}
	e2etest.Check(t, s.Call(t, "POST", "/api/v1/admin/webhooks/"+seqOf(paused)+"/resend", e2etest.AdminToken, nil), e2etest.Want{Status: 409, Code: "delivery_not_failed"})

	// Each re-send is in the audit log, by the admin token, failed → pending.
	log := s.Call(t, "GET", "/api/v1/admin/audit?action=webhook_resend", e2etest.AdminToken, nil)
	entries, _ := log.Body["entries"].([]any)
	if len(entries) != 2 {
		t.Fatalf("audit log holds %d re-sends, want 2: %s", len(entries), log.Raw)
	}
	e := entries[1].(map[string]any) // the older: the first re-send
	before, after := e["before"].(map[string]any), e["after"].(map[string]any)
	if e["actor"] != e2etest.Fingerprint("token", e2etest.AdminToken) || e["item_id"] != nil || before["event_id"] != paused["event_id"] ||
		before["state"] != "failed" || after["state"] != "pending" || strings.Contains(log.Raw, "hook-password") {
		t.Errorf("audit entry = %v", e)
	}
}

// What an admin asks wrongly is refused with the code that says why, and
// changes nothing.
func TestWebhookAdminRefusals(t *testing.T) {
	t.Parallel()
	recv := e2etest.NewHookReceiver(t)
	recv.Status.Store(http.StatusOK)
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0), e2etest.HooksTo(recv, time.Hour))
	id := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	s.PauseAndResume(t, id)
	var all []map[string]any
	testenv.WaitFor(t, 10*time.Second, func() bool {
		all, _ = s.Deliveries(t, "?state=delivered")
		return len(all) == 2
	}, "the events were never delivered")

	// Paging: one a page, newest first, then the older, then no more.
	page, r := s.Deliveries(t, "?limit=1")
	next, _ := r.Body["next_cursor"].(string)
	if len(page) != 1 || page[0]["seq"] != all[0]["seq"] || next == "" {
		t.Fatalf("first page: %s", r.Raw)
	}
	page, r = s.Deliveries(t, "?limit=1&cursor="+next)
	if len(page) != 1 || page[0]["seq"] != all[1]["seq"] || r.Body["next_cursor"] != nil {
		t.Fatalf("second page: %s", r.Raw)
	}
	if page, _ := s.Deliveries(t, "?state=pending"); len(page) != 0 {
		t.Errorf("pending lists %v, want none", page)
	}

	seq := e2etest.Itoa(int64(all[0]["seq"].(float64)))
	for _, tc := range []struct {
		method, path, auth string
		want               e2etest.Want
	}{
		{"GET", "/api/v1/admin/webhooks?state=lost", e2etest.AdminToken, e2etest.Want{Status: 400, Code: "invalid_state", Field: "state"}},
		{"GET", "/api/v1/admin/webhooks?limit=0", e2etest.AdminToken, e2etest.Want{Status: 400, Code: "invalid_limit", Field: "limit"}},
		{"GET", "/api/v1/admin/webhooks?limit=201", e2etest.AdminToken, e2etest.Want{Status: 400, Code: "invalid_limit", Field: "limit"}},
		{"GET", "/api/v1/admin/webhooks?cursor=x", e2etest.AdminToken, e2etest.Want{Status: 400, Code: "invalid_cursor", Field: "cursor"}},
		{"GET", "/api/v1/admin/webhooks", "", e2etest.Want{Status: 401, Code: "unauthenticated"}},
		{"GET", "/api/v1/admin/webhooks/99999999", e2etest.AdminToken, e2etest.Want{Status: 404, Code: "delivery_not_found"}},
		{"GET", "/api/v1/admin/webhooks/abc", e2etest.AdminToken, e2etest.Want{Status: 404, Code: "delivery_not_found"}},
		{"POST", "/api/v1/admin/webhooks/99999999/resend", e2etest.AdminToken, e2etest.Want{Status: 404, Code: "delivery_not_found"}},
		{"POST", "/api/v1/admin/webhooks/" + seq + "/resend", "", e2etest.Want{Status: 401, Code: "unauthenticated"}},
		{"POST", "/api/v1/admin/webhooks/" + seq + "/resend", e2etest.AdminToken, e2etest.Want{Status: 409, Code: "delivery_not_failed"}},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) { e2etest.Check(t, s.Call(t, tc.method, tc.path, tc.auth, nil), tc.want) })
	}
	if d := s.Call(t, "GET", "/api/v1/admin/webhooks/"+seq, e2etest.AdminToken, nil); d.Str("state") != "delivered" {
		t.Errorf("a refused re-send changed the delivery: %s", d.Raw)
	}
	if log := s.Call(t, "GET", "/api/v1/admin/audit?action=webhook_resend", e2etest.AdminToken, nil); len(log.Body["entries"].([]any)) != 0 {
		t.Errorf("a refused re-send was recorded: %s", log.Raw)
	}
}

// While the receiver is down, the outbox's gauges show what waits and for
// how long, and retries are counted; once it is back, what waited is
// delivered and the gauges fall to zero.
func TestWebhookOutboxMetricsMove(t *testing.T) {
	t.Parallel()
	recv := e2etest.NewHookReceiver(t)
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0), e2etest.HooksTo(recv, time.Hour))
	if v := e2etest.Series(t, s, "seckill_webhook_outbox_pending"); v != 0 {
		t.Fatalf("pending = %v before any event, want 0", v)
	}
	id := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	s.PauseAndResume(t, id)
	testenv.WaitFor(t, 10*time.Second, func() bool {
		return e2etest.Series(t, s, `seckill_webhook_deliveries_total{result="retry"}`) >= 1 &&
			e2etest.Series(t, s, "seckill_webhook_outbox_oldest_pending_seconds") >= 1
	}, "no retry counted, or the oldest pending age never grew")
	if v := e2etest.Series(t, s, "seckill_webhook_outbox_pending"); v != 2 {
		t.Errorf("pending = %v with the receiver down, want 2", v)
	}
	if v := e2etest.Series(t, s, "seckill_webhook_delivery_seconds_count"); v < 1 {
		t.Errorf("delivery_seconds_count = %v, want the attempts timed", v)
	}

	recv.Status.Store(http.StatusOK)
	testenv.WaitFor(t, 15*time.Second, func() bool {
		return e2etest.Series(t, s, `seckill_webhook_deliveries_total{result="delivered"}`) == 2 &&
			e2etest.Series(t, s, "seckill_webhook_outbox_pending") == 0
	}, "the waiting events were never delivered")
	if v := e2etest.Series(t, s, "seckill_webhook_outbox_oldest_pending_seconds"); v != 0 {
		t.Errorf("oldest pending age = %v with nothing pending, want 0", v)
	}
	if v := e2etest.Series(t, s, `seckill_webhook_deliveries_total{result="failed"}`); v != 0 {
		t.Errorf(`deliveries_total{result="failed"} = %v, want 0`, v)
	}
}
