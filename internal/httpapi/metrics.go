package httpapi

import (
	"cmp"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the server's Prometheus metrics, on a registry of their own so
// several servers can live in one test process.
type Metrics struct {
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

// NewMetrics registers the metrics; streamLag is read at scrape time.
func NewMetrics(streamLag func() Lag) *Metrics {
	m := &Metrics{
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
// many scrape (0: at every scrape).
func (m *Metrics) Handler(cacheFor time.Duration) http.Handler {
	return promhttp.HandlerFor(cachedGatherer(m.reg, cacheFor), promhttp.HandlerOpts{})
}

// JobRan counts a run of a singleton job by this server.
func (m *Metrics) JobRan(job string) { m.jobRuns.WithLabelValues(job).Inc() }

// Persisted counts orders written to MySQL by one batch (order.Observer).
func (m *Metrics) Persisted(n int) {
	m.persisted.Add(float64(n))
	m.persistTx.Observe(float64(n))
}

// Rejected counts stream entries MySQL refused (order.Observer).
func (m *Metrics) Rejected(n int) { m.rejected.Add(float64(n)) }

// Batch returns an observer of the batch sizes of op (e.g. "reserve").
func (m *Metrics) Batch(op string) func(n int) {
	h := m.batches.WithLabelValues(op)
	return func(n int) { h.Observe(float64(n)) }
}

// outcomeKey is where the purchase's handlers put its outcome when it is not
// simply the error code answered (reserved, replayed, gated_*).
const outcomeKey = "seckill.purchase_outcome"

// handledKey holds the time the purchase handler began: the duration
// histogram times the handler's work, not the guards before it.
const handledKey = "seckill.purchase_handled"

// purchaseOutcome counts every purchase by outcome, whichever guard or
// handler answered, and times those the handler answered: the one place the
// purchase metrics are counted. It runs first on the purchase route, after
// the group's Origin check (a cross-site POST is no purchase attempt).
func (m *Metrics) purchaseOutcome(c *gin.Context) {
	c.Next()
	outcome := cmp.Or(c.GetString(outcomeKey), c.GetString(errorCodeKey))
	if outcome == "" && c.Writer.Status() == http.StatusGone {
		// The sold-out mark's pre-encoded answer: it sets nothing, since
		// the first value set allocates the request's key map, and that
		// storm is answered thousands of times a second.
		outcome = "marked_sold_out"
	}
	m.purchaseCounter(cmp.Or(outcome, "unknown")).Inc()
	if start, ok := c.Get(handledKey); ok {
		m.purchaseLt.Observe(time.Since(start.(time.Time)).Seconds())
	}
}

func (m *Metrics) purchaseCounter(outcome string) prometheus.Counter {
	if ctr, ok := m.outcomes.Load(outcome); ok {
		return ctr.(prometheus.Counter)
	}
	ctr, _ := m.outcomes.LoadOrStore(outcome, m.purchases.WithLabelValues(outcome))
	return ctr.(prometheus.Counter)
}

func (m *Metrics) middleware(c *gin.Context) {
	start := time.Now()
	c.Next()
	route := c.FullPath()
	if route == "" {
		route = "unmatched" // never the raw path: unbounded label values
	}
	m.requests.WithLabelValues(route, strconv.Itoa(c.Writer.Status())).Observe(time.Since(start).Seconds())
}
