package app_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/internal/webhook"
)

const hookSecret = "test-webhook-secret-0123456789abcdef"

// hookReceiver is a shop's webhook endpoint: it answers status (500 until
// told otherwise) and keeps the events it took with a valid signature,
// each once (receivers dedupe by id), in the order they came.
type hookReceiver struct {
	srv    *httptest.Server
	status atomic.Int32
	mu     sync.Mutex
	took   map[string]string // event id -> type, answered 2xx
	events []hookEvent       // the events taken, in order
	forged int
}

// hookEvent is an event as a receiver reads it.
type hookEvent struct {
	ID        string         `json:"id"`
	Type      string         `json:"type"`
	CreatedAt time.Time      `json:"created_at"`
	Data      map[string]any `json:"data"`
}

func newHookReceiver(tb testing.TB) *hookReceiver {
	tb.Helper()
	r := &hookReceiver{took: map[string]string{}}
	r.status.Store(http.StatusInternalServerError)
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	tb.Cleanup(r.srv.Close)
	return r
}

func (r *hookReceiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	status := int(r.status.Load())
	r.mu.Lock()
	defer r.mu.Unlock()
	if webhook.Verify([]byte(hookSecret), req.Header.Get(webhook.SignatureHeader), body, time.Now()) != nil {
		r.forged++
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	var ev hookEvent
	if status/100 == 2 && json.Unmarshal(body, &ev) == nil && r.took[ev.ID] == "" {
		r.took[ev.ID] = ev.Type
		r.events = append(r.events, ev)
	}
	w.WriteHeader(status)
}

// got returns the type of the event id the receiver took, "" if none.
func (r *hookReceiver) got(id string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.took[id]
}

// url is the endpoint with a password in it, which no admin page may show.
func (r *hookReceiver) url() string {
	return strings.Replace(r.srv.URL, "http://", "http://shop:hook-password@", 1) + "/seckill"
}

// hooksTo sends the server's events to r, giving up on a delivery after
// giveUp.
func hooksTo(r *hookReceiver, giveUp time.Duration) option {
	return func(c *config.Config) {
		c.WebhookURLs, c.WebhookSecret, c.WebhookGiveUp = []string{r.url()}, hookSecret, giveUp
	}
}

// pauseAndResume has the sale announce sale.paused then sale.resumed.
func (s *server) pauseAndResume(tb testing.TB, id int64) {
	tb.Helper()
	for _, act := range []string{"pause", "resume"} {
		if r := s.call(tb, "POST", "/api/v1/admin/items/"+itoa(id)+"/"+act, adminToken, nil); r.status != 200 {
			tb.Fatalf("%s: %d %s", act, r.status, r.raw)
		}
	}
}

// deliveries lists the outbox through the admin API.
func (s *server) deliveries(tb testing.TB, query string) (list []map[string]any, r reply) {
	tb.Helper()
	r = s.call(tb, "GET", "/api/v1/admin/webhooks"+query, adminToken, nil)
	if r.status != 200 {
		tb.Fatalf("list deliveries%s: %d %s", query, r.status, r.raw)
	}
	for _, d := range r.body["deliveries"].([]any) {
		list = append(list, d.(map[string]any))
	}
	return list, r
}

func outboxStat(r reply, k string) float64 { return r.body["stats"].(map[string]any)[k].(float64) }

// A receiver that keeps answering 500 makes both events of a sale fail for
// good once their give-up time passes: the admin API lists them with the
// receiver's answer and the endpoint without its password, and so do the
// metrics. Re-sent once the receiver is fixed, each reaches it, leaves the
// failed list and is recorded in the audit log; what is not failed, or not
// there, is refused.
func TestWebhookFailuresListedAndResent(t *testing.T) {
	t.Parallel()
	recv := newHookReceiver(t)
	s := start(t, newClock(t0), hooksTo(recv, time.Second))
	id := s.sale(t, 5, 1, t0, t0.Add(time.Hour))
	s.pauseAndResume(t, id)

	var failed []map[string]any
	var r reply
	testenv.WaitFor(t, 15*time.Second, func() bool {
		failed, r = s.deliveries(t, "?state=failed")
		return len(failed) == 2
	}, "the events never failed: %s", r.raw)
	if strings.Contains(r.raw, "hook-password") {
		t.Fatalf("the list shows the endpoint's password: %s", r.raw)
	}
	wantEndpoint := webhook.Redact(recv.url())
	for i, typ := range []string{webhook.SaleResumed, webhook.SalePaused} { // newest first
		d := failed[i]
		if d["type"] != typ || d["state"] != "failed" || d["endpoint"] != wantEndpoint || d["subject"] != "sale:"+itoa(id) ||
			d["last_status"] != 500.0 || !strings.Contains(d["last_error"].(string), "500") || d["attempts"].(float64) < 1 ||
			d["delivered_at"] != nil || d["event"] != nil {
			t.Errorf("failed delivery %d = %v", i, d)
		}
	}
	if got := r.body["endpoints"].([]any); len(got) != 1 || got[0] != wantEndpoint {
		t.Errorf("endpoints = %v, want [%s]", got, wantEndpoint)
	}
	if outboxStat(r, "failed") != 2 || outboxStat(r, "pending") != 0 || outboxStat(r, "oldest_pending_seconds") != 0 {
		t.Errorf("stats = %v, want 2 failed, nothing pending", r.body["stats"])
	}
	if v := series(t, s, "seckill_webhook_outbox_failed"); v != 2 {
		t.Errorf("seckill_webhook_outbox_failed = %v, want 2", v)
	}
	if v := series(t, s, `seckill_webhook_deliveries_total{result="failed"}`); v != 2 {
		t.Errorf(`deliveries_total{result="failed"} = %v, want 2`, v)
	}

	resumed, paused := failed[0], failed[1]
	seqOf := func(d map[string]any) string { return itoa(int64(d["seq"].(float64))) }
	one := s.call(t, "GET", "/api/v1/admin/webhooks/"+seqOf(paused), adminToken, nil)
	ev, _ := one.body["event"].(map[string]any)
	if one.status != 200 || ev["id"] != paused["event_id"] || ev["type"] != webhook.SalePaused || one.str("endpoint") != wantEndpoint {
		t.Fatalf("one delivery: %d %s", one.status, one.raw)
	}

	recv.status.Store(http.StatusNoContent)
	for _, d := range []map[string]any{paused, resumed} {
		r := s.call(t, "POST", "/api/v1/admin/webhooks/"+seqOf(d)+"/resend", adminToken, nil)
		// Delivered already, if the dispatcher was that quick.
		if r.status != 200 || r.str("state") == "failed" || r.str("event_id") != d["event_id"] {
			t.Fatalf("resend: %d %s", r.status, r.raw)
		}
		if giveUp, _ := time.Parse(time.RFC3339Nano, r.str("give_up_at")); giveUp.Before(time.Now()) && r.str("state") == "pending" {
			t.Errorf("re-sent with no time left to retry: %s", r.raw)
		}
	}
	for _, d := range []map[string]any{paused, resumed} {
		id := d["event_id"].(string)
		testenv.WaitFor(t, 10*time.Second, func() bool { return recv.got(id) == d["type"] }, "the receiver never got %s", id)
	}
	testenv.WaitFor(t, 5*time.Second, func() bool {
		failed, r = s.deliveries(t, "?state=failed")
		return len(failed) == 0 && outboxStat(r, "failed") == 0
	}, "the re-sent deliveries are still listed failed: %s", r.raw)
	if v := series(t, s, "seckill_webhook_outbox_failed"); v != 0 {
		t.Errorf("seckill_webhook_outbox_failed = %v after the re-sends, want 0", v)
	}
	check(t, s.call(t, "POST", "/api/v1/admin/webhooks/"+seqOf(paused)+"/resend", adminToken, nil), want{409, "delivery_not_failed", ""})

	// Each re-send is in the audit log, by the admin token, failed → pending.
	log := s.call(t, "GET", "/api/v1/admin/audit?action=webhook_resend", adminToken, nil)
	entries, _ := log.body["entries"].([]any)
	if len(entries) != 2 {
		t.Fatalf("audit log holds %d re-sends, want 2: %s", len(entries), log.raw)
	}
	e := entries[1].(map[string]any) // the older: the first re-send
	before, after := e["before"].(map[string]any), e["after"].(map[string]any)
	if e["actor"] != fingerprint("token", adminToken) || e["item_id"] != nil || before["event_id"] != paused["event_id"] ||
		before["state"] != "failed" || after["state"] != "pending" || strings.Contains(log.raw, "hook-password") {
		t.Errorf("audit entry = %v", e)
	}
}

// What an admin asks wrongly is refused with the code that says why, and
// changes nothing.
func TestWebhookAdminRefusals(t *testing.T) {
	t.Parallel()
	recv := newHookReceiver(t)
	recv.status.Store(http.StatusOK)
	s := start(t, newClock(t0), hooksTo(recv, time.Hour))
	id := s.sale(t, 5, 1, t0, t0.Add(time.Hour))
	s.pauseAndResume(t, id)
	var all []map[string]any
	testenv.WaitFor(t, 10*time.Second, func() bool {
		all, _ = s.deliveries(t, "?state=delivered")
		return len(all) == 2
	}, "the events were never delivered")

	// Paging: one a page, newest first, then the older, then no more.
	page, r := s.deliveries(t, "?limit=1")
	next, _ := r.body["next_cursor"].(string)
	if len(page) != 1 || page[0]["seq"] != all[0]["seq"] || next == "" {
		t.Fatalf("first page: %s", r.raw)
	}
	page, r = s.deliveries(t, "?limit=1&cursor="+next)
	if len(page) != 1 || page[0]["seq"] != all[1]["seq"] || r.body["next_cursor"] != nil {
		t.Fatalf("second page: %s", r.raw)
	}
	if page, _ := s.deliveries(t, "?state=pending"); len(page) != 0 {
		t.Errorf("pending lists %v, want none", page)
	}

	seq := itoa(int64(all[0]["seq"].(float64)))
	for _, tc := range []struct {
		method, path, auth string
		want               want
	}{
		{"GET", "/api/v1/admin/webhooks?state=lost", adminToken, want{400, "invalid_state", "state"}},
		{"GET", "/api/v1/admin/webhooks?limit=0", adminToken, want{400, "invalid_limit", "limit"}},
		{"GET", "/api/v1/admin/webhooks?limit=201", adminToken, want{400, "invalid_limit", "limit"}},
		{"GET", "/api/v1/admin/webhooks?cursor=x", adminToken, want{400, "invalid_cursor", "cursor"}},
		{"GET", "/api/v1/admin/webhooks", "", want{401, "unauthenticated", ""}},
		{"GET", "/api/v1/admin/webhooks/99999999", adminToken, want{404, "delivery_not_found", ""}},
		{"GET", "/api/v1/admin/webhooks/abc", adminToken, want{404, "delivery_not_found", ""}},
		{"POST", "/api/v1/admin/webhooks/99999999/resend", adminToken, want{404, "delivery_not_found", ""}},
		{"POST", "/api/v1/admin/webhooks/" + seq + "/resend", "", want{401, "unauthenticated", ""}},
		{"POST", "/api/v1/admin/webhooks/" + seq + "/resend", adminToken, want{409, "delivery_not_failed", ""}},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) { check(t, s.call(t, tc.method, tc.path, tc.auth, nil), tc.want) })
	}
	if d := s.call(t, "GET", "/api/v1/admin/webhooks/"+seq, adminToken, nil); d.str("state") != "delivered" {
		t.Errorf("a refused re-send changed the delivery: %s", d.raw)
	}
	if log := s.call(t, "GET", "/api/v1/admin/audit?action=webhook_resend", adminToken, nil); len(log.body["entries"].([]any)) != 0 {
		t.Errorf("a refused re-send was recorded: %s", log.raw)
	}
}

// While the receiver is down, the outbox's gauges show what waits and for
// how long, and retries are counted; once it is back, what waited is
// delivered and the gauges fall to zero.
func TestWebhookOutboxMetricsMove(t *testing.T) {
	t.Parallel()
	recv := newHookReceiver(t)
	s := start(t, newClock(t0), hooksTo(recv, time.Hour))
	if v := series(t, s, "seckill_webhook_outbox_pending"); v != 0 {
		t.Fatalf("pending = %v before any event, want 0", v)
	}
	id := s.sale(t, 5, 1, t0, t0.Add(time.Hour))
	s.pauseAndResume(t, id)
	testenv.WaitFor(t, 10*time.Second, func() bool {
		return series(t, s, `seckill_webhook_deliveries_total{result="retry"}`) >= 1 &&
			series(t, s, "seckill_webhook_outbox_oldest_pending_seconds") >= 1
	}, "no retry counted, or the oldest pending age never grew")
	if v := series(t, s, "seckill_webhook_outbox_pending"); v != 2 {
		t.Errorf("pending = %v with the receiver down, want 2", v)
	}
	if v := series(t, s, "seckill_webhook_delivery_seconds_count"); v < 1 {
		t.Errorf("delivery_seconds_count = %v, want the attempts timed", v)
	}

	recv.status.Store(http.StatusOK)
	testenv.WaitFor(t, 15*time.Second, func() bool {
		return series(t, s, `seckill_webhook_deliveries_total{result="delivered"}`) == 2 &&
			series(t, s, "seckill_webhook_outbox_pending") == 0
	}, "the waiting events were never delivered")
	if v := series(t, s, "seckill_webhook_outbox_oldest_pending_seconds"); v != 0 {
		t.Errorf("oldest pending age = %v with nothing pending, want 0", v)
	}
	if v := series(t, s, `seckill_webhook_deliveries_total{result="failed"}`); v != 0 {
		t.Errorf(`deliveries_total{result="failed"} = %v, want 0`, v)
	}
}
