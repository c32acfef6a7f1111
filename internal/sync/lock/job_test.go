package lock_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/sync/lock"
)

// TestJobsRunOncePerPeriodAcrossServers: three servers tick the same job;
// it runs once per period in all, not once per server.
func TestJobsRunOncePerPeriodAcrossServers(t *testing.T) {
	t.Parallel()
	l, _ := newLocker(t)
	const every = 100 * time.Millisecond
	var runs sync.Map // server -> *atomic.Int64
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	began := time.Now()
	var wg sync.WaitGroup
	total := new(atomic.Int64)
	for server := range 3 {
		jobs := l.NewJobs(slog.New(slog.NewTextHandler(io.Discard, nil)))
		mine := new(atomic.Int64)
		runs.Store(server, mine)
		job := lockJob(every, func(context.Context) error {
			mine.Add(1)
			total.Add(1)
			return nil
		})
		wg.Go(func() { jobs.Run(ctx, job) })
	}
	wg.Wait()
	periods := int64(time.Since(began) / every)
	// Once per period in all: three servers each running every period would
	// make three times as many runs. A loaded machine may miss some ticks,
	// but a job that hardly ran is broken.
	if n := total.Load(); n > periods+1 || n < periods/2 {
		runs.Range(func(server, n any) bool {
			t.Logf("server %d ran %d times", server, n.(*atomic.Int64).Load())
			return true
		})
		t.Fatalf("%d runs in %d periods of %v on 3 servers, want one per period", n, periods, every)
	}
}

func lockJob(every time.Duration, run func(context.Context) error) lock.Job {
	return lock.Job{Name: "test-job", Every: every, Run: run}
}

// TestJobsRunEachOfSeveral: one server runs jobs of different periods, each
// about as often as its period says.
func TestJobsRunEachOfSeveral(t *testing.T) {
	t.Parallel()
	l, _ := newLocker(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var fast, slow atomic.Int64
	jobs := l.NewJobs(slog.New(slog.NewTextHandler(io.Discard, nil)))
	jobs.Run(ctx,
		lock.Job{Name: "fast", Every: 50 * time.Millisecond, Run: func(context.Context) error { fast.Add(1); return nil }},
		lock.Job{Name: "slow", Every: 200 * time.Millisecond, Run: func(context.Context) error { slow.Add(1); return nil }})
	if f, s := fast.Load(), slow.Load(); f < 8 || f > 20 || s < 2 || s > 5 {
		t.Fatalf("in 1s: fast (every 50ms) ran %d times, slow (every 200ms) %d; want about 20 and 5", f, s)
	}
}
