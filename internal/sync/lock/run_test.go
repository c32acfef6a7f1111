package lock_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/sync/lock"
	"github.com/seckill/seckill/internal/testenv"
)

// TestRunNeverOverlaps: 100 contenders, as on 100 servers, keep trying to
// run one job until it has run 30 times. Each run holds the lock until an
// attempt begun after the run started has been refused, so every run was
// contested while it held the lock: a second holder would have shown.
func TestRunNeverOverlaps(t *testing.T) {
	t.Parallel()
	l, _ := newLocker(t)
	const contenders, wantRuns = 100, 30
	base := time.Now()
	since := func() int64 { return int64(time.Since(base)) } // monotonic
	var holders, most, runs atomic.Int64
	var lastRefused atomic.Int64 // when the latest refused attempt began, by since
	var worked [contenders]atomic.Bool
	job := func(i int) func(context.Context) error {
		return func(context.Context) error {
			storeMax(&most, holders.Add(1))
			began := since()
			if !testenv.Eventually(5*time.Second, func() bool { return lastRefused.Load() > began || runs.Load() >= wantRuns }) {
				t.Errorf("contender %d's run: no attempt was refused while it held the lock", i)
			}
			holders.Add(-1)
			worked[i].Store(true)
			runs.Add(1)
			return nil
		}
	}
	var wg sync.WaitGroup
	for i := range contenders {
		wg.Go(func() {
			owner := lock.NewOwner()
			for runs.Load() < wantRuns {
				began := since()
				err := l.Run(context.Background(), "sweeper", owner, time.Second, job(i))
				switch {
				case errors.Is(err, lock.ErrNotObtained):
					storeMax(&lastRefused, began)
				case err != nil:
					t.Errorf("contender %d: %v", i, err)
					return
				}
			}
		})
	}
	wg.Wait()

	if m := most.Load(); m != 1 {
		t.Errorf("at most %d concurrent holders, want 1", m)
	}
	var workers int
	for i := range worked {
		if worked[i].Load() {
			workers++
		}
	}
	t.Logf("%d runs by %d of %d contenders", runs.Load(), workers, contenders)
	if workers < 5 {
		t.Errorf("%d contenders got work done, want several (>= 5)", workers)
	}
}

// storeMax raises a to v if v is higher.
func storeMax(a *atomic.Int64, v int64) {
	for m := a.Load(); v > m && !a.CompareAndSwap(m, v); m = a.Load() {
	}
}

// Serial: it needs each refresh within a third of a 300ms TTL, which
// parallel load could delay.
func TestSlowJobKeepsLockByRefresh(t *testing.T) {
	l, _ := newLocker(t)
	const ttl = 300 * time.Millisecond
	started, finishing, polled := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var polls atomic.Int64
	go func() { // the contender, on another server
		defer close(polled)
		<-started
		for {
			select {
			case <-finishing:
				return
			default:
			}
			if _, err := l.Obtain(context.Background(), "recon", "contender", ttl); !errors.Is(err, lock.ErrNotObtained) {
				t.Errorf("contender obtained while the job ran: %v", err)
				return
			}
			polls.Add(1)
			// sleep because real time passing is the point: the job outlives
			// its TTL four times, Redis expires keys by its own clock (no
			// clock to inject), and the contender samples the lock across it.
			time.Sleep(20 * time.Millisecond)
		}
	}()

	err := l.Run(context.Background(), "recon", "job", ttl, func(ctx context.Context) error {
		close(started)
		defer func() { // the lock is released only after the contender's last poll
			close(finishing)
			<-polled
		}()
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(1200 * time.Millisecond):
			return nil
		}
	})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if n := polls.Load(); n < 20 {
		t.Errorf("contender polled %d times, want >= 20", n)
	}
	mustObtain(t, l, "recon", "contender", ttl)
}

// Serial: it wants the job cancelled within ~ttl/3 of the theft, a bound
// parallel load would skew.
func TestRunCancelsWhenLockStolen(t *testing.T) {
	const ttl = 300 * time.Millisecond
	tests := []struct {
		name  string
		steal func(tb testing.TB, l *lock.Locker, rdb *redis.Client)
	}{
		{"key deleted", func(tb testing.TB, l *lock.Locker, rdb *redis.Client) {
			if err := rdb.Del(context.Background(), l.Key("sweeper")).Err(); err != nil {
				tb.Error(err)
			}
		}},
		{"taken by another owner", func(tb testing.TB, l *lock.Locker, rdb *redis.Client) {
			rdb.Del(context.Background(), l.Key("sweeper"))
			mustObtain(tb, l, "sweeper", "thief", time.Minute)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, rdb := newLocker(t)
			err := l.Run(context.Background(), "sweeper", "job", ttl, func(ctx context.Context) error {
				tt.steal(t, l, rdb)
				stolen := time.Now()
				select {
				case <-ctx.Done():
				case <-time.After(ttl):
					t.Fatal("job's ctx not cancelled within ttl of the theft")
				}
				if waited := time.Since(stolen); waited > ttl/3+ttl/6 {
					t.Errorf("job's ctx cancelled %v after the theft, want within ~ttl/3 (%v)", waited, ttl/3)
				}
				if cause := context.Cause(ctx); !errors.Is(cause, lock.ErrLockLost) {
					t.Errorf("cause %v, want ErrLockLost", cause)
				}
				return ctx.Err()
			})
			if !errors.Is(err, lock.ErrLockLost) || !errors.Is(err, context.Canceled) {
				t.Errorf("run: %v, want ErrLockLost joined with context.Canceled", err)
			}
			if tt.name == "taken by another owner" {
				wantHeld(t, l, "sweeper") // Run's release left the thief's lock alone
			}
		})
	}
}

// flakyRedis fails every script while fail is set, like a Redis that became
// unreachable. Overriding EvalSha is enough: Script.Run falls back to Eval
// only on NOSCRIPT.
type flakyRedis struct {
	redis.UniversalClient
	fail atomic.Bool
}

var errInjected = errors.New("injected: connection refused")

func (f *flakyRedis) EvalSha(ctx context.Context, sha string, keys []string, args ...any) *redis.Cmd {
	if f.fail.Load() {
		cmd := redis.NewCmd(ctx)
		cmd.SetErr(errInjected)
		return cmd
	}
	return f.UniversalClient.EvalSha(ctx, sha, keys, args...)
}

// TestRunStopsBeforeExpiryWhenRedisFails: if refreshes keep failing, the job
// must stop before its lock can expire and be taken by another server.
// Serial: it wants the cancellation before the TTL, a bound parallel load
// would skew.
func TestRunStopsBeforeExpiryWhenRedisFails(t *testing.T) {
	rdb, prefix := testenv.Redis(t)
	flaky := &flakyRedis{UniversalClient: rdb}
	l := lock.New(flaky, prefix)
	const ttl = 300 * time.Millisecond
	err := l.Run(context.Background(), "recon", "job", ttl, func(ctx context.Context) error {
		obtained := time.Now() // the lock may expire at obtained+ttl
		flaky.fail.Store(true)
		select {
		case <-ctx.Done():
		case <-time.After(2 * ttl):
			t.Fatal("job's ctx not cancelled while refreshes failed")
		}
		if waited := time.Since(obtained); waited >= ttl {
			t.Errorf("job's ctx cancelled %v after obtaining, at or after the ttl %v", waited, ttl)
		}
		if cause := context.Cause(ctx); !errors.Is(cause, lock.ErrLockLost) || !errors.Is(cause, errInjected) {
			t.Errorf("cause %v, want ErrLockLost and the Redis error", cause)
		}
		return nil
	})
	if !errors.Is(err, lock.ErrLockLost) {
		t.Errorf("run: %v, want ErrLockLost", err)
	}
}

func TestRunResult(t *testing.T) {
	t.Parallel()
	errBoom := errors.New("boom")
	tests := []struct {
		name    string
		holder  string // who holds the lock before Run, "" for nobody
		fnErr   error
		wantErr error
		wantRan bool
	}{
		{name: "fn succeeds", wantRan: true},
		{name: "fn fails", fnErr: errBoom, wantErr: errBoom, wantRan: true},
		{name: "held elsewhere", holder: "other", wantErr: lock.ErrNotObtained},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := lockerHeldBy(t, tt.holder, time.Minute)
			ran := false
			err := l.Run(context.Background(), "job", "me", time.Second, func(context.Context) error {
				ran = true
				return tt.fnErr
			})
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("run: %v, want %v", err, tt.wantErr)
			}
			if ran != tt.wantRan {
				t.Errorf("fn ran: %v, want %v", ran, tt.wantRan)
			}
			if tt.holder == "" {
				wantFree(t, l, "job")
			}
		})
	}
}

func TestRunReleasesWhenFnPanics(t *testing.T) {
	t.Parallel()
	l, _ := newLocker(t)
	func() {
		defer func() {
			if r := recover(); r != "job blew up" {
				t.Errorf("recovered %v, want the job's panic", r)
			}
		}()
		l.Run(context.Background(), "job", "me", time.Second, func(context.Context) error {
			panic("job blew up")
		})
	}()
	wantFree(t, l, "job")
}
