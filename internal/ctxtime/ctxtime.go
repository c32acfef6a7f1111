// Package ctxtime waits on the clock while a context lives. The webhook
// dispatcher, the stock warm-up, the sync lock and the bench runner each
// wrote their own timer-and-select; a single copy keeps the timer stopped on
// every path, so a cancelled wait never leaves a timer behind.
package ctxtime

import (
	"context"
	"time"
)

// Sleep waits for d, or less if ctx ends first. It returns ctx's error when
// ctx ended before d passed, and nil otherwise; d <= 0 returns at once
// (still reporting an ended ctx).
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Every calls f each time d passes, first after d, until ctx ends; then it
// returns nil, since a background loop ending with its context is its
// normal end. A call of f that overruns d skips the ticks it missed.
func Every(ctx context.Context, d time.Duration, f func()) error {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			f()
		}
	}
}
