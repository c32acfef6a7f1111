package ctxtime

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestSleep(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		ctx     context.Context
		d       time.Duration
		want    error
		atLeast time.Duration
		atMost  time.Duration
	}{
		{"waits the whole duration", context.Background(), 20 * time.Millisecond, nil, 20 * time.Millisecond, time.Second},
		{"zero returns at once", context.Background(), 0, nil, 0, 50 * time.Millisecond},
		{"negative returns at once", context.Background(), -time.Second, nil, 0, 50 * time.Millisecond},
		{"ended context returns at once", cancelled, time.Hour, context.Canceled, 0, 50 * time.Millisecond},
		{"ended context with zero duration", cancelled, 0, context.Canceled, 0, 50 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			err := Sleep(tt.ctx, tt.d)
			took := time.Since(start)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Sleep = %v, want %v", err, tt.want)
			}
			if took < tt.atLeast || took > tt.atMost {
				t.Fatalf("Sleep took %v, want between %v and %v", took, tt.atLeast, tt.atMost)
			}
		})
	}
}

// A context ending during the wait cuts it short with the context's error.
func TestSleepCutShort(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := Sleep(ctx, time.Hour)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Sleep = %v, want %v", err, context.DeadlineExceeded)
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("Sleep took %v after the deadline of 20ms", took)
	}
}

// Every calls f on each tick and returns nil once ctx ends.
func TestEvery(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	done := make(chan error, 1)
	go func() {
		done <- Every(ctx, 5*time.Millisecond, func() {
			if calls++; calls == 3 {
				cancel()
			}
		})
	}()
	select {
	case err := <-done:
		if err != nil || calls != 3 {
			t.Fatalf("Every = %v after %d calls, want nil after 3", err, calls)
		}
	case <-time.After(5 * time.Second):
		cancel()
		t.Fatal("Every did not return after its context ended")
	}
}
