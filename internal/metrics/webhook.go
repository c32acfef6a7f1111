package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/seckill/seckill/internal/webhook"
)

// webhookMetrics watch the webhook outbox: this server's delivery attempts
// (the dispatcher counts them), and the outbox itself, read from MySQL at
// scrape time. The outbox is the fleet's, so every server exports the same
// gauges; the alerts take their max.
type webhookMetrics struct {
	attempts *prometheus.CounterVec
	took     prometheus.Histogram
}

// webhookResults are the values of seckill_webhook_deliveries_total's
// result label (webhook.Observer).
var webhookResults = []string{"delivered", "retry", "failed"}

func newWebhookMetrics() webhookMetrics {
	return webhookMetrics{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seckill_webhook_deliveries_total",
			Help: "Webhook delivery attempts by this server, by result: delivered, retry (failed, tried again later), failed (failed, given up: an admin re-sends it).",
		}, []string{"result"}),
		took: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "seckill_webhook_delivery_seconds", Help: "Time one webhook delivery attempt took, until the receiver answered or the attempt failed.",
			Buckets: prometheus.DefBuckets,
		}),
	}
}

func (w webhookMetrics) register(reg *prometheus.Registry) {
	reg.MustRegister(w.attempts, w.took)
	for _, r := range webhookResults {
		w.attempts.WithLabelValues(r)
	}
}

// WebhookAttempt counts one delivery attempt and its time (webhook.Observer).
func (m *Set) WebhookAttempt(result string, took time.Duration) {
	m.webhooks.attempts.WithLabelValues(result).Inc()
	m.webhooks.took.Observe(took.Seconds())
}

// FollowOutbox exports the outbox's counts, read with stats at each
// gathering (webhook.Store.Stats); call it once, before serving.
func (m *Set) FollowOutbox(stats func(ctx context.Context) (webhook.Stats, error)) {
	m.reg.MustRegister(outboxCollector{stats})
}

// outboxCollector reads the outbox's stats once per gathering for its
// three gauges.
type outboxCollector struct {
	read func(ctx context.Context) (webhook.Stats, error)
}

var (
	outboxPendingDesc = prometheus.NewDesc("seckill_webhook_outbox_pending",
		"Webhook deliveries on their way, not yet delivered or given up (-1: MySQL could not be read).", nil, nil)
	outboxOldestDesc = prometheus.NewDesc("seckill_webhook_outbox_oldest_pending_seconds",
		"Age of the oldest webhook delivery on its way; 0 when none.", nil, nil)
	outboxFailedDesc = prometheus.NewDesc("seckill_webhook_outbox_failed",
		"Webhook deliveries given up on, waiting for an admin to re-send them (-1: MySQL could not be read).", nil, nil)
)

func (o outboxCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- outboxPendingDesc
	ch <- outboxOldestDesc
	ch <- outboxFailedDesc
}

func (o outboxCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	pending, oldest, failed := -1.0, -1.0, -1.0
	if st, err := o.read(ctx); err == nil {
		pending, failed, oldest = float64(st.Pending), float64(st.Failed), 0
		if !st.OldestPending.IsZero() { // MySQL's clock may run ahead of this server's
			oldest = max(0, time.Since(st.OldestPending).Seconds())
		}
	}
	ch <- prometheus.MustNewConstMetric(outboxPendingDesc, prometheus.GaugeValue, pending)
	ch <- prometheus.MustNewConstMetric(outboxOldestDesc, prometheus.GaugeValue, oldest)
	ch <- prometheus.MustNewConstMetric(outboxFailedDesc, prometheus.GaugeValue, failed)
}
