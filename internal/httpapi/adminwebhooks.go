package httpapi

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/audit"
	"github.com/seckill/seckill/internal/webhook"
)

// WebhookOutbox is the webhook outbox as an admin sees it (webhook.Store).
type WebhookOutbox interface {
	List(ctx context.Context, state string, before int64, limit int) ([]webhook.Delivery, error)
	Get(ctx context.Context, seq int64) (webhook.Delivery, error)
	Resend(ctx context.Context, seq int64, now time.Time, giveUp time.Duration) (webhook.Delivery, error)
	Stats(ctx context.Context) (webhook.Stats, error)
}

// webhookAPI lists the outbox's deliveries and re-sends failed ones.
//
// Its times are the wall clock's, never Deps.Now: the outbox is dated by
// it (webhook.Writer), and the dispatcher compares next attempts with it.
type webhookAPI struct {
	replier
	outbox    WebhookOutbox
	auditor   audit.Recorder
	giveUp    time.Duration // a re-sent delivery's new period of retries
	endpoints []string      // redacted: where events go now
}

func newWebhookAPI(rep replier, d Deps) webhookAPI {
	eps := make([]string, len(d.WebhookEndpoints))
	for i, e := range d.WebhookEndpoints {
		eps[i] = webhook.Redact(e)
	}
	return webhookAPI{replier: rep, outbox: d.Webhooks, auditor: d.Auditor,
		giveUp: cmp.Or(d.WebhookGiveUp, webhook.DefaultGiveUp), endpoints: eps}
}

// Paging of GET /admin/webhooks.
const (
	webhooksDefaultLimit = 50
	webhooksMaxLimit     = 200
)

// delivery is a delivery as the API shows it: the endpoint without a
// password its URL may carry.
type delivery struct {
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
	Event         json.RawMessage `json:"event,omitempty"` // one delivery's GET only: the body as sent
}

func viewDelivery(d webhook.Delivery) delivery {
	utc := func(t *time.Time) *time.Time {
		if t == nil {
			return nil
		}
		u := t.UTC()
		return &u
	}
	return delivery{Seq: d.Seq, EventID: d.EventID, Type: d.Type, Subject: d.Subject, Endpoint: webhook.Redact(d.Endpoint),
		State: d.State, Attempts: d.Attempts, CreatedAt: d.CreatedAt.UTC(), NextAttemptAt: d.NextAttemptAt.UTC(),
		GiveUpAt: d.GiveUpAt.UTC(), DeliveredAt: utc(d.DeliveredAt), LastStatus: d.LastStatus, LastError: d.LastError}
}

// outboxStats is the outbox at a glance, as the list shows it.
type outboxStats struct {
	Pending              int     `json:"pending"`
	Failed               int     `json:"failed"`
	OldestPendingSeconds float64 `json:"oldest_pending_seconds"`
}

func viewStats(st webhook.Stats, now time.Time) outboxStats {
	out := outboxStats{Pending: st.Pending, Failed: st.Failed}
	if !st.OldestPending.IsZero() {
		out.OldestPendingSeconds = max(0, now.Sub(st.OldestPending).Seconds())
	}
	return out
}

// list answers a page of deliveries, newest first, with the outbox's
// counts and the endpoints configured. Like the audit log's, the cursor is
// the seq of the page before's last delivery.
func (w webhookAPI) list(c *gin.Context) {
	limit, cursor, state, err := webhooksQuery(c)
	if err != nil {
		w.fail(c, err)
		return
	}
	ctx := c.Request.Context()
	ds, err := w.outbox.List(ctx, state, cursor, limit+1)
	if err != nil {
		w.fail(c, err)
		return
	}
	st, err := w.outbox.Stats(ctx)
	if err != nil {
		w.fail(c, err)
		return
	}
	var next *string
	if len(ds) > limit {
		ds = ds[:limit]
		s := strconv.FormatInt(ds[limit-1].Seq, 10)
		next = &s
	}
	out := make([]delivery, len(ds))
	for i, d := range ds {
		out[i] = viewDelivery(d)
	}
	c.JSON(http.StatusOK, gin.H{"deliveries": out, "next_cursor": next, "stats": viewStats(st, time.Now()),
		"endpoints": w.endpoints})
}

func webhooksQuery(c *gin.Context) (limit int, cursor int64, state string, err error) {
	if limit, cursor, err = seqPage(c, webhooksDefaultLimit, webhooksMaxLimit); err != nil {
		return 0, 0, "", err
	}
	switch state = c.Query("state"); state {
	case "", webhook.StatePending, webhook.StateDelivered, webhook.StateFailed:
		return limit, cursor, state, nil
	}
	return 0, 0, "", errInvalidState
}

// get answers one delivery with the event's body as it was signed and sent.
func (w webhookAPI) get(c *gin.Context) {
	seq, err := deliverySeq(c)
	if err != nil {
		w.fail(c, err)
		return
	}
	d, err := w.outbox.Get(c.Request.Context(), seq)
	if err != nil {
		w.fail(c, err)
		return
	}
	v := viewDelivery(d)
	if json.Valid(d.Body) {
		v.Event = d.Body
	}
	c.JSON(http.StatusOK, v)
}

// resend puts a failed delivery back on its way with another full period
// of retries, and records who did so in the audit log.
func (w webhookAPI) resend(c *gin.Context) {
	seq, err := deliverySeq(c)
	if err != nil {
		w.fail(c, err)
		return
	}
	ctx := c.Request.Context()
	before, err := w.outbox.Get(ctx, seq)
	if err != nil {
		w.fail(c, err)
		return
	}
	now := time.Now()
	after, err := w.outbox.Resend(ctx, seq, now, w.giveUp)
	if err != nil {
		w.fail(c, err)
		return
	}
	// What the admin changed, not what the dispatcher may already have
	// made of it since.
	was := resentFields(before)
	is := resentFields(before)
	is["state"], is["next_attempt_at"], is["give_up_at"] = webhook.StatePending, now.UTC(), now.Add(w.giveUp).UTC()
	audit.Write(ctx, w.auditor, w.log, audit.ActionWebhookResend, 0, was, is)
	c.JSON(http.StatusOK, viewDelivery(after))
}

// resentFields are what an audit entry of a re-send shows of the delivery.
func resentFields(d webhook.Delivery) map[string]any {
	return map[string]any{"seq": d.Seq, "event_id": d.EventID, "type": d.Type, "endpoint": webhook.Redact(d.Endpoint),
		"state": d.State, "attempts": d.Attempts, "last_status": d.LastStatus, "last_error": d.LastError,
		"next_attempt_at": d.NextAttemptAt.UTC(), "give_up_at": d.GiveUpAt.UTC()}
}

func deliverySeq(c *gin.Context) (int64, error) {
	seq, err := strconv.ParseInt(c.Param("seq"), 10, 64)
	if err != nil || seq <= 0 {
		return 0, errDeliveryNotFound
	}
	return seq, nil
}
