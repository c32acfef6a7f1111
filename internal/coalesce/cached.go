package coalesce

import (
	"context"
	"time"
)

// Cached is check with its verdict reused for ttl (0: check itself), and
// one check at a time: /readyz needs no sign-in, so a flood of probes must
// not become a flood of MySQL and Redis round trips, while a load balancer
// polling every few seconds still sees a fresh verdict. The check runs on a
// context of its own: the caller that happens to start it may hang up, and
// the others still wait for its verdict.
func Cached[T any](check func(ctx context.Context) T, ttl time.Duration) func(ctx context.Context) T {
	if check == nil || ttl <= 0 {
		return check
	}
	m := NewMemo(ttl, func() (T, error) { return check(context.Background()), nil })
	return func(context.Context) T {
		v, _ := m.Get()
		return v
	}
}
