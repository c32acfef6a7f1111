// Package metrics holds the server's Prometheus metrics: what the HTTP
// layer, the persisters, the jobs, the Redis client, the webhook dispatcher
// and the proof of work count, and the /metrics page that shows them. The
// parts it measures only know small observer interfaces of their own
// (order.Observer, webhook.Observer, httpapi.RequestMetrics, ...), so none
// of them imports the Prometheus client. The names, labels, help texts and
// buckets are what deploy/prometheus/alerts.yml and the Grafana dashboard
// read: renaming one breaks them.
package metrics

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/seckill/seckill/internal/coalesce"
)

// Set is the server's metrics, on a registry of their own so several
// servers can live in one test process.
type Set struct {
	reg        *prometheus.Registry
	purchases  *prometheus.CounterVec
	purchaseLt prometheus.Histogram
	requests   *prometheus.HistogramVec
	persisted  prometheus.Counter
	persistTx  prometheus.Histogram
	jobRuns    *prometheus.CounterVec
	rejected   prometheus.Counter
	batches    *prometheus.HistogramVec
	ops        opsMetrics
	webhooks   webhookMetrics
	pow        powMetrics
	// outcomes caches purchases' counter of each outcome: the sold-out
	// storm counts thousands a second, and a label lookup hashes.
	outcomes sync.Map // outcome -> prometheus.Counter
}

// New registers the metrics; streamLag is read at scrape time.
func New(streamLag func() Lag) *Set {
	m := &Set{
		reg: prometheus.NewRegistry(),
		purchases: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seckill_purchases_total", Help: "Purchase attempts by outcome (reserved, replayed, or the error code).",
		}, []string{"outcome"}),
		purchaseLt: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "seckill_purchase_duration_seconds", Help: "Time the purchase handler took to answer, after sign-in, limits and token.",
			Buckets: []float64{.0005, .001, .002, .005, .01, .025, .05, .1, .25, 1},
		}),
		requests: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "seckill_http_request_duration_seconds", Help: "HTTP requests by route and status.",
			Buckets: prometheus.DefBuckets,
		}, []string{"route", "status"}),
		jobRuns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seckill_job_runs_total", Help: "Runs of the singleton jobs (sweeper, reconcile) made by this server.",
		}, []string{"job"}),
		persisted: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "seckill_orders_persisted_total", Help: "Orders written to MySQL by the stream workers.",
		}),
		// MySQL's cost per order falls steeply with the rows per
		// transaction, so how full the batches are is what to watch.
		persistTx: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "seckill_persist_batch_orders", Help: "Orders inserted by one persister transaction.",
			Buckets: []float64{1, 10, 50, 100, 200, 300, 400, 500},
		}),
		rejected: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "seckill_orders_rejected_total", Help: "Stream entries MySQL refused (Redis had drifted); their stock was returned.",
		}),
		batches: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "seckill_redis_batch_size", Help: "Requests answered by one coalesced Redis round trip, by operation.",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128},
		}, []string{"op"}),
	}
	m.ops = newOpsMetrics()
	m.reg.MustRegister(m.purchases, m.purchaseLt, m.requests, m.persisted, m.persistTx, m.rejected, m.batches, m.jobRuns,
		lagCollector{streamLag}, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.ops.register(m.reg)
	m.webhooks = newWebhookMetrics()
	m.webhooks.register(m.reg)
	m.pow = newPowMetrics()
	m.pow.register(m.reg)
	// Label values known in advance are exported from the start, so an
	// alert on them sees a zero rather than no series.
	for _, job := range []string{"sweeper", "reconcile"} {
		m.jobRuns.WithLabelValues(job)
	}
	return m
}

// Handler serves the metrics, gathered at most once per cacheFor however
// many scrape (0: at every scrape). Each gathering reads every warm sale's
// stream length and the webhook outbox, so a flood of scrapes, which need
// no sign-in, must share one (Settings.OpsCache).
func (m *Set) Handler(cacheFor time.Duration) http.Handler {
	return promhttp.HandlerFor(cachedGatherer(m.reg, cacheFor), promhttp.HandlerOpts{})
}

// cachedGatherer is a registry's gathering in a memo kept for ttl (0: none).
// The metric families are only read by the encoders, so scrapes may share
// them.
func cachedGatherer(g prometheus.Gatherer, ttl time.Duration) prometheus.Gatherer {
	if ttl <= 0 {
		return g
	}
	return prometheus.GathererFunc(coalesce.NewMemo(ttl, g.Gather).Get)
}

// JobRan counts a run of a singleton job by this server.
func (m *Set) JobRan(job string) { m.jobRuns.WithLabelValues(job).Inc() }

// Persisted counts orders written to MySQL by one batch (order.Observer).
func (m *Set) Persisted(n int) {
	m.persisted.Add(float64(n))
	m.persistTx.Observe(float64(n))
}

// Rejected counts stream entries MySQL refused (order.Observer).
func (m *Set) Rejected(n int) { m.rejected.Add(float64(n)) }

// Batch returns an observer of the batch sizes of op (e.g. "reserve").
func (m *Set) Batch(op string) func(n int) {
	h := m.batches.WithLabelValues(op)
	return func(n int) { h.Observe(float64(n)) }
}

// ObserveRequest times one HTTP request by its route pattern and status
// (httpapi.RequestMetrics).
func (m *Set) ObserveRequest(route string, status int, took time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Observe(took.Seconds())
}

// PurchaseOutcome counts one purchase attempt by its outcome: reserved,
// replayed, gated_*, marked_sold_out or the error code answered
// (httpapi.RequestMetrics).
func (m *Set) PurchaseOutcome(outcome string) { m.purchaseCounter(outcome).Inc() }

// PurchaseHandled times the purchase handler's work on one request, after
// the guards before it (httpapi.RequestMetrics).
func (m *Set) PurchaseHandled(took time.Duration) { m.purchaseLt.Observe(took.Seconds()) }

func (m *Set) purchaseCounter(outcome string) prometheus.Counter {
	if ctr, ok := m.outcomes.Load(outcome); ok {
		return ctr.(prometheus.Counter)
	}
	ctr, _ := m.outcomes.LoadOrStore(outcome, m.purchases.WithLabelValues(outcome))
	return ctr.(prometheus.Counter)
}
