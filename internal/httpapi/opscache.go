package httpapi

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/singleflight"
)

// /readyz and /metrics need no sign-in, so a flood of them must not become
// a flood of MySQL and Redis round trips (each gathering of the metrics reads
// every warm sale's stream length). Settings.OpsCache is how long a
// readiness verdict and a gathering are reused: within it every probe and
// scrape gets the same answer, and only one check or gathering runs at a
// time. A load balancer or Prometheus polling every few seconds still sees
// fresh values.

// memo runs an expensive look at most once per ttl, one at a time, however
// many callers ask; they share its result.
type memo[T any] struct {
	run    func() (T, error)
	ttl    time.Duration
	flight singleflight.Group
	mu     sync.Mutex
	at     time.Time
	last   T
	err    error
}

func (m *memo[T]) get() (T, error) {
	m.mu.Lock()
	if !m.at.IsZero() && time.Since(m.at) < m.ttl {
		defer m.mu.Unlock()
		return m.last, m.err
	}
	m.mu.Unlock()
	m.flight.Do("", func() (any, error) {
		last, err := m.run()
		m.mu.Lock()
		defer m.mu.Unlock()
		m.at, m.last, m.err = time.Now(), last, err
		return nil, nil
	})
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.last, m.err
}

func newMemo[T any](ttl time.Duration, run func() (T, error)) *memo[T] {
	return &memo[T]{run: run, ttl: ttl}
}

// cachedReady wraps the readiness checks in a memo kept for ttl (0: none).
// The check runs on a context of its own: the probe that happens to start
// it may hang up, and the others still wait for its verdict.
func cachedReady(ready func(ctx context.Context) map[string]string, ttl time.Duration) func(ctx context.Context) map[string]string {
	if ready == nil || ttl <= 0 {
		return ready
	}
	m := newMemo(ttl, func() (map[string]string, error) { return ready(context.Background()), nil })
	return func(context.Context) map[string]string {
		failed, _ := m.get()
		return failed
	}
}

// cachedGatherer is a registry's gathering in a memo kept for ttl (0: none).
// The metric families are only read by the encoders, so scrapes may share
// them.
func cachedGatherer(g prometheus.Gatherer, ttl time.Duration) prometheus.Gatherer {
	if ttl <= 0 {
		return g
	}
	return prometheus.GathererFunc(newMemo(ttl, g.Gather).get)
}
