package webhook

import (
	"cmp"
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"time"

	"github.com/seckill/seckill/internal/audit"
)

// Outbox is the outbox as an admin sees it (Store).
type Outbox interface {
	List(ctx context.Context, state string, before int64, limit int) ([]Delivery, error)
	Get(ctx context.Context, seq int64) (Delivery, error)
	Resend(ctx context.Context, seq int64, now time.Time, giveUp time.Duration) (Delivery, error)
	Stats(ctx context.Context) (Stats, error)
}

// Admin is the outbox as the admin pages show it: the deliveries, the
// endpoints events go to, and re-sending a failed delivery, recorded in
// the audit log since no service owns that change.
//
// Its times are the wall clock's, never the sales' injectable clock: the
// outbox is dated by it (Writer), and the dispatcher compares next
// attempts with it.
type Admin struct {
	outbox    Outbox
	auditor   audit.Recorder
	log       *slog.Logger
	giveUp    time.Duration // a re-sent delivery's new period of retries
	endpoints []string      // redacted: where events go now
	now       func() time.Time
}

// NewAdmin shows o. A re-sent delivery is retried for giveUp again
// (DefaultGiveUp when 0) and recorded with auditor (nil: not recorded);
// endpoints are shown redacted.
func NewAdmin(o Outbox, auditor audit.Recorder, log *slog.Logger, endpoints []string, giveUp time.Duration,
	now func() time.Time) *Admin {
	eps := make([]string, len(endpoints))
	for i, e := range endpoints {
		eps[i] = Redact(e)
	}
	return &Admin{outbox: o, auditor: auditor, log: cmp.Or(log, slog.Default()), giveUp: cmp.Or(giveUp, DefaultGiveUp),
		endpoints: eps, now: now}
}

// Listing is a page of deliveries, newest first, with the outbox's counts
// and the endpoints configured. Like the audit log's, the cursor is the
// seq of the page before's last delivery.
type Listing struct {
	Deliveries []DeliveryView `json:"deliveries"`
	Endpoints  []string       `json:"endpoints"`
	NextCursor *string        `json:"next_cursor"`
	Stats      StatsView      `json:"stats"`
}

// List is the page of up to limit deliveries in state ("" for any) before
// the seq before (0: the newest). Its errors are the outbox's.
func (a *Admin) List(ctx context.Context, state string, before int64, limit int) (Listing, error) {
	ds, err := a.outbox.List(ctx, state, before, limit+1)
	if err != nil {
		return Listing{}, err
	}
	st, err := a.outbox.Stats(ctx)
	if err != nil {
		return Listing{}, err
	}
	out := Listing{Endpoints: a.endpoints, Stats: viewStats(st, a.now())}
	if len(ds) > limit {
		ds = ds[:limit]
		s := strconv.FormatInt(ds[limit-1].Seq, 10)
		out.NextCursor = &s
	}
	out.Deliveries = make([]DeliveryView, len(ds))
	for i, d := range ds {
		out.Deliveries[i] = viewDelivery(d)
	}
	return out, nil
}

// Get is one delivery with the event's body as it was signed and sent;
// ErrNotFound if there is none.
func (a *Admin) Get(ctx context.Context, seq int64) (DeliveryView, error) {
	d, err := a.outbox.Get(ctx, seq)
	if err != nil {
		return DeliveryView{}, err
	}
	v := viewDelivery(d)
	if json.Valid(d.Body) {
		v.Event = d.Body
	}
	return v, nil
}

// Resend puts a failed delivery back on its way with another full period
// of retries, and records who did so in the audit log. Its errors are the
// outbox's: ErrNotFound, ErrNotFailed.
func (a *Admin) Resend(ctx context.Context, seq int64) (DeliveryView, error) {
	before, err := a.outbox.Get(ctx, seq)
	if err != nil {
		return DeliveryView{}, err
	}
	now := a.now()
	after, err := a.outbox.Resend(ctx, seq, now, a.giveUp)
	if err != nil {
		return DeliveryView{}, err
	}
	// What the admin changed, not what the dispatcher may already have
	// made of it since.
	was := resentFields(before)
	is := resentFields(before)
	is["state"], is["next_attempt_at"], is["give_up_at"] = StatePending, now.UTC(), now.Add(a.giveUp).UTC()
	audit.Write(ctx, a.auditor, a.log, audit.ActionWebhookResend, 0, was, is)
	return viewDelivery(after), nil
}

// resentFields are what an audit entry of a re-send shows of the delivery.
func resentFields(d Delivery) map[string]any {
	return map[string]any{"seq": d.Seq, "event_id": d.EventID, "type": d.Type, "endpoint": Redact(d.Endpoint),
		"state": d.State, "attempts": d.Attempts, "last_status": d.LastStatus, "last_error": d.LastError,
		"next_attempt_at": d.NextAttemptAt.UTC(), "give_up_at": d.GiveUpAt.UTC()}
}

// DeliveryView is a delivery as the admin API shows it: the endpoint
// without a password its URL may carry.
type DeliveryView struct {
	Seq           int64           `json:"seq"`
	EventID       string          `json:"event_id"`
	Type          string          `json:"type"`
	Subject       string          `json:"subject"`
	Endpoint      string          `json:"endpoint"`
	State         string          `json:"state"`
	Attempts      int             `json:"attempts"`
	CreatedAt     time.Time       `json:"created_at"`
	NextAttemptAt time.Time       `json:"next_attempt_at"`
	GiveUpAt      time.Time       `json:"give_up_at"`
	DeliveredAt   *time.Time      `json:"delivered_at"`
	LastStatus    *int            `json:"last_status"`
	LastError     *string         `json:"last_error"`
	Event         json.RawMessage `json:"event,omitempty"` // one delivery's Get only: the body as sent
}

func viewDelivery(d Delivery) DeliveryView {
	utc := func(t *time.Time) *time.Time {
		if t == nil {
			return nil
		}
		u := t.UTC()
		return &u
	}
	return DeliveryView{Seq: d.Seq, EventID: d.EventID, Type: d.Type, Subject: d.Subject, Endpoint: Redact(d.Endpoint),
		State: d.State, Attempts: d.Attempts, CreatedAt: d.CreatedAt.UTC(), NextAttemptAt: d.NextAttemptAt.UTC(),
		GiveUpAt: d.GiveUpAt.UTC(), DeliveredAt: utc(d.DeliveredAt), LastStatus: d.LastStatus, LastError: d.LastError}
}

// StatsView is the outbox at a glance, as the list shows it.
type StatsView struct {
	Pending              int     `json:"pending"`
	Failed               int     `json:"failed"`
	OldestPendingSeconds float64 `json:"oldest_pending_seconds"`
}

func viewStats(st Stats, now time.Time) StatsView {
	out := StatsView{Pending: st.Pending, Failed: st.Failed}
	if !st.OldestPending.IsZero() {
		out.OldestPendingSeconds = max(0, now.Sub(st.OldestPending).Seconds())
	}
	return out
}
