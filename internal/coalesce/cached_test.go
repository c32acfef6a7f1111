package coalesce

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

func TestCached(t *testing.T) {
	var runs atomic.Int32
	check := func(context.Context) int { return int(runs.Add(1)) }
	if got := Cached(check, 0)(context.Background()); got != 1 {
		t.Fatalf("uncached check = %d, want 1", got)
	}
	cached := Cached(check, time.Hour)
	for range 3 {
		if got := cached(context.Background()); got != 2 {
			t.Fatalf("cached check = %d, want the one verdict 2", got)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := Cached(func(ctx context.Context) error { return ctx.Err() }, time.Hour)(ctx); got != nil {
		t.Fatalf("the check ran on the caller's context: %v", got)
	}
}
