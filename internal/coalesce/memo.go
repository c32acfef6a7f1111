package coalesce

import (
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// Memo runs an expensive look at most once per ttl, one at a time, however
// many callers ask; they share its result. /readyz and /metrics need no
// sign-in, so a flood of either must not become a flood of MySQL and Redis
// round trips: both keep their look in a Memo.
type Memo[T any] struct {
	run    func() (T, error)
	ttl    time.Duration
	flight singleflight.Group
	mu     sync.Mutex
	at     time.Time
	last   T
	err    error
}

// NewMemo returns a Memo of run kept for ttl.
func NewMemo[T any](ttl time.Duration, run func() (T, error)) *Memo[T] {
	return &Memo[T]{run: run, ttl: ttl}
}

// Get returns the last run's result if it is younger than ttl, else runs
// again (or waits for the run already under way) and returns that. The
// error is run's.
func (m *Memo[T]) Get() (T, error) {
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
