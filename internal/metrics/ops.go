package metrics

import (
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
)

// opsMetrics are what the alert rules (deploy/prometheus/alerts.yml) watch
// besides the request metrics: the stores' health, the persisters'
// failures, reconciliation's findings and the Lua scripts. Every label has
// a handful of values, all known in advance and exported from the start.
type opsMetrics struct {
	depUp         *prometheus.GaugeVec
	drift         prometheus.Counter
	persistErrs   *prometheus.CounterVec
	scriptDur     *prometheus.HistogramVec
	scriptReloads *prometheus.CounterVec
	busy          prometheus.Counter
}

// persisterStages are the values of seckill_persister_errors_total's stage
// label (see order.Observer.Failed).
var persisterStages = []string{"read", "reclaim", "write", "ack", "repair", "malformed"}

func newOpsMetrics() opsMetrics {
	return opsMetrics{
		depUp: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "seckill_dependency_up", Help: "1 if the last background check reached the store, else 0.",
		}, []string{"dependency"}),
		drift: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "seckill_reconcile_drift_total", Help: "Sales that a repairing reconciliation (its job, an admin's POST) found drifted (Redis lost the sale or disagreed with MySQL); the read-only check counts nothing.",
		}),
		persistErrs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seckill_persister_errors_total", Help: "Failures of the stream persisters, by stage of their work.",
		}, []string{"stage"}),
		// Scripts run in tens of microseconds; the top buckets catch one
		// that approaches Redis's busy limit.
		scriptDur: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "seckill_redis_script_duration_seconds", Help: "Round trip of one Lua script call (or one pipeline of them), by script.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .05, .25, 1, 5},
		}, []string{"script"}),
		scriptReloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seckill_redis_script_reloads_total", Help: "EVALSHA calls Redis answered NOSCRIPT (its script cache was flushed), so the script was sent again.",
		}, []string{"script"}),
		busy: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "seckill_redis_busy_total", Help: "Commands Redis refused with BUSY: a script ran past its busy limit.",
		}),
	}
}

func (o opsMetrics) register(reg *prometheus.Registry) {
	reg.MustRegister(o.depUp, o.drift, o.persistErrs, o.scriptDur, o.scriptReloads, o.busy)
	for _, s := range persisterStages {
		o.persistErrs.WithLabelValues(s)
	}
}

// DependencyUp records whether the last check reached a store ("redis" or
// "mysql").
func (m *Set) DependencyUp(dependency string, up bool) {
	v := 0.0
	if up {
		v = 1
	}
	m.ops.depUp.WithLabelValues(dependency).Set(v)
}

// DriftFound counts a sale a repairing reconciliation found drifted.
func (m *Set) DriftFound() { m.ops.drift.Inc() }

// Failed counts a persister's failure at stage (order.Observer).
func (m *Set) Failed(stage string) { m.ops.persistErrs.WithLabelValues(stage).Inc() }

// RedisHook returns the go-redis hook that times the Lua scripts and counts
// their NOSCRIPT reloads and Redis's BUSY answers; add it to the server's
// client. The BUSY answers are logged at most once a second.
func (m *Set) RedisHook(log *slog.Logger) redis.Hook {
	h := newScriptHook(m.ops.scriptDur, m.ops.scriptReloads, m.ops.busy)
	var last atomic.Int64
	h.onBusy = func() {
		now := time.Now().UnixNano()
		if prev := last.Load(); now-prev >= int64(time.Second) && last.CompareAndSwap(prev, now) {
			log.Warn("redis is busy running a script past its limit: answering 503 until it ends or is killed (SCRIPT KILL)")
		}
	}
	return h
}

// Lag is how far persistence is behind: orders reserved in Redis and not yet
// in MySQL, and the age of the oldest of them (0 when none).
type Lag struct {
	Pending       float64
	OldestSeconds float64
}

// lagCollector reads the lag once per scrape for both of its gauges.
type lagCollector struct{ read func() Lag }

var (
	pendingDesc = prometheus.NewDesc("seckill_stream_pending_orders",
		"Orders reserved in Redis and not yet persisted to MySQL (-1: Redis could not be read).", nil, nil)
	oldestDesc = prometheus.NewDesc("seckill_stream_oldest_pending_seconds",
		"Age of the oldest order reserved in Redis and not yet persisted to MySQL; 0 when none.", nil, nil)
)

func (l lagCollector) Describe(ch chan<- *prometheus.Desc) { ch <- pendingDesc; ch <- oldestDesc }

func (l lagCollector) Collect(ch chan<- prometheus.Metric) {
	lag := l.read()
	ch <- prometheus.MustNewConstMetric(pendingDesc, prometheus.GaugeValue, lag.Pending)
	ch <- prometheus.MustNewConstMetric(oldestDesc, prometheus.GaugeValue, lag.OldestSeconds)
}
