package httpapi

import (
	"context"
	"time"

	"github.com/seckill/seckill/internal/coalesce"
)

// /readyz needs no sign-in, so a flood of probes must not become a flood of
// MySQL and Redis round trips. Settings.OpsCache is how long a readiness
// verdict is reused: within it every probe gets the same answer, and only
// one check runs at a time. A load balancer polling every few seconds still
// sees a fresh verdict. (The /metrics page, Metrics.Page, caches its
// gathering the same way.)

// cachedReady wraps the readiness checks in a memo kept for ttl (0: none).
// The check runs on a context of its own: the probe that happens to start
// it may hang up, and the others still wait for its verdict.
func cachedReady(ready func(ctx context.Context) map[string]string, ttl time.Duration) func(ctx context.Context) map[string]string {
	if ready == nil || ttl <= 0 {
		return ready
	}
	m := coalesce.NewMemo(ttl, func() (map[string]string, error) { return ready(context.Background()), nil })
	return func(context.Context) map[string]string {
		failed, _ := m.Get()
		return failed
	}
}
