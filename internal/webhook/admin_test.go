package webhook_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/audit"
	"github.com/seckill/seckill/internal/webhook"
)

// TestAdminResendsAndRecordsIt: the admin's list pages the outbox newest
// first with redacted endpoints; a re-send puts a failed delivery back with
// a new period of retries and leaves one audit entry saying so, and a
// delivery that has not failed is refused and leaves none.
func TestAdminResendsAndRecordsIt(t *testing.T) {
	g := newRig(t)
	ctx := context.Background()
	endpoint := "http://user:pw@127.0.0.1:9/hooks"
	w := webhook.NewWriter([]string{endpoint}, time.Now, time.Hour)
	for i := range 3 {
		g.write(t, w, ev(webhook.OrderConfirmed, webhook.OrderSubject(itoa(i)), i))
	}
	if err := g.db.Exec("UPDATE outbox SET state = ? WHERE seq = 2", webhook.StateFailed).Error; err != nil {
		t.Fatal(err)
	}
	log := audit.NewStore(g.db, time.Now)
	admin := webhook.NewAdmin(g.store, log, nil, []string{endpoint}, 2*time.Hour, time.Now)

	page, err := admin.List(ctx, "", 0, 2)
	if err != nil || len(page.Deliveries) != 2 || page.Deliveries[0].Seq != 3 || page.NextCursor == nil || *page.NextCursor != "2" {
		t.Fatalf("first page: %+v, %v; want seqs 3, 2 and cursor 2", page, err)
	}
	if page.Endpoints[0] != webhook.Redact(endpoint) || page.Deliveries[0].Endpoint != webhook.Redact(endpoint) {
		t.Fatalf("endpoints %v, %q: want them redacted", page.Endpoints, page.Deliveries[0].Endpoint)
	}
	if page.Stats.Failed != 1 || page.Stats.Pending != 2 {
		t.Fatalf("stats %+v, want 2 pending and 1 failed", page.Stats)
	}

	before := time.Now()
	d, err := admin.Resend(ctx, 2)
	if err != nil || d.State != webhook.StatePending || d.GiveUpAt.Before(before.Add(2*time.Hour-time.Second)) {
		t.Fatalf("re-sent: %+v, %v; want pending with two hours of retries", d, err)
	}
	if _, err := admin.Resend(ctx, 3); !errors.Is(err, webhook.ErrNotFailed) {
		t.Fatalf("re-sending a pending delivery: %v, want ErrNotFailed", err)
	}
	entries, err := log.List(ctx, audit.Filter{Action: audit.ActionWebhookResend}, 10, 0)
	if err != nil || len(entries.Entries) != 1 {
		t.Fatalf("audit entries %+v, %v; want one re-send", entries, err)
	}
	var was, is map[string]any
	if json.Unmarshal(entries.Entries[0].Before, &was) != nil || json.Unmarshal(entries.Entries[0].After, &is) != nil ||
		was["state"] != webhook.StateFailed || is["state"] != webhook.StatePending || was["seq"] != float64(2) {
		t.Fatalf("audit entry before %s after %s; want seq 2 from failed to pending",
			entries.Entries[0].Before, entries.Entries[0].After)
	}
}
