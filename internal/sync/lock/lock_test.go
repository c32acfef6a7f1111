package lock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/sync/lock"
	"github.com/seckill/seckill/internal/testenv"
)

// newLocker is a Locker on the test Redis under this test's own key prefix.
func newLocker(tb testing.TB) (*lock.Locker, *redis.Client) {
	tb.Helper()
	rdb, prefix := testenv.Redis(tb)
	return lock.New(rdb, prefix), rdb
}

// lockerHeldBy is newLocker with the lock "job" held by holder for ttl, or
// by nobody when holder is "".
func lockerHeldBy(tb testing.TB, holder string, ttl time.Duration) *lock.Locker {
	tb.Helper()
	l, _ := newLocker(tb)
	if holder != "" {
		mustObtain(tb, l, "job", holder, ttl)
	}
	return l
}

// mustObtain obtains name for owner or fails the test.
func mustObtain(tb testing.TB, l *lock.Locker, name, owner string, ttl time.Duration) *lock.Lock {
	tb.Helper()
	lk, err := l.Obtain(context.Background(), name, owner, ttl)
	if err != nil {
		tb.Fatalf("obtain %q for %s: %v", name, owner, err)
	}
	return lk
}

// wantHeld checks that name is held: another owner cannot obtain it.
func wantHeld(tb testing.TB, l *lock.Locker, name string) {
	tb.Helper()
	_, err := l.Obtain(context.Background(), name, lock.NewOwner(), time.Second)
	if !errors.Is(err, lock.ErrNotObtained) {
		tb.Fatalf("obtain %q by a stranger: %v, want ErrNotObtained", name, err)
	}
}

// wantFree checks that name is free: another owner obtains it (and frees it again).
func wantFree(tb testing.TB, l *lock.Locker, name string) {
	tb.Helper()
	lk := mustObtain(tb, l, name, lock.NewOwner(), time.Second)
	if err := lk.Release(context.Background()); err != nil {
		tb.Fatalf("release %q: %v", name, err)
	}
}

func TestObtain(t *testing.T) {
	t.Parallel()
	const owner = "me"
	tests := []struct {
		name    string
		holder  string // who holds the lock before, "" for nobody
		ttl     time.Duration
		wantErr error // nil: obtained; errAny: some non-sentinel error
	}{
		{name: "free", ttl: time.Second},
		{name: "held by the same owner", holder: owner, ttl: time.Second},
		{name: "held by another owner", holder: "other", ttl: time.Second, wantErr: lock.ErrNotObtained},
		{name: "ttl below 1ms", ttl: time.Microsecond, wantErr: errAny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := lockerHeldBy(t, tt.holder, time.Second)
			lk, err := l.Obtain(context.Background(), "job", owner, tt.ttl)
			switch {
			case tt.wantErr == errAny && err != nil:
			case !errors.Is(err, tt.wantErr):
				t.Fatalf("obtain: %v, want %v", err, tt.wantErr)
			case err == nil && lk.Owner() != owner:
				t.Errorf("owner %q, want %q", lk.Owner(), owner)
			}
		})
	}
}

var errAny = errors.New("any error")

func TestDeadHolderLosesLockAtTTL(t *testing.T) {
	t.Parallel()
	l, _ := newLocker(t)
	const ttl = 200 * time.Millisecond
	start := time.Now()
	mustObtain(t, l, "sweeper", "dead", ttl) // and never refreshed
	wantHeld(t, l, "sweeper")

	lk, err := l.ObtainWait(context.Background(), "sweeper", "heir", ttl, 2*time.Second)
	if err != nil {
		t.Fatalf("obtain after the dead holder's ttl: %v", err)
	}
	if waited := time.Since(start); waited < ttl*3/4 {
		t.Errorf("obtained after %v, before the dead holder's ttl %v", waited, ttl)
	}
	if lk.Owner() != "heir" {
		t.Errorf("owner %q, want heir", lk.Owner())
	}
}

func TestObtainWait(t *testing.T) {
	t.Parallel()
	l, _ := newLocker(t)
	ctx := context.Background()
	held := mustObtain(t, l, "job", "holder", 5*time.Second)

	if _, err := l.ObtainWait(ctx, "job", "waiter", time.Second, 100*time.Millisecond); !errors.Is(err, lock.ErrNotObtained) {
		t.Fatalf("wait while held: %v, want ErrNotObtained", err)
	}
	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := l.ObtainWait(cctx, "job", "waiter", time.Second, time.Minute); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("wait past ctx's deadline: %v, want context.DeadlineExceeded", err)
	}
	time.AfterFunc(100*time.Millisecond, func() { held.Release(ctx) })
	if _, err := l.ObtainWait(ctx, "job", "waiter", time.Second, 2*time.Second); err != nil {
		t.Fatalf("wait for the holder's release: %v", err)
	}
}

func TestStrangerCannotReleaseOrRefresh(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		op   func(*lock.Lock) error
		want error
	}{
		{"refresh", func(lk *lock.Lock) error { return lk.Refresh(context.Background(), time.Minute) }, lock.ErrLockLost},
		{"release", func(lk *lock.Lock) error { return lk.Release(context.Background()) }, lock.ErrNotHeld},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l, rdb := newLocker(t)
			// The stranger held the lock once; it expired and the owner took it.
			stale := mustObtain(t, l, "job", "stranger", 20*time.Millisecond)
			testenv.WaitFor(t, 2*time.Second, func() bool {
				n, err := rdb.Exists(context.Background(), l.Key("job")).Result()
				return err == nil && n == 0
			}, "the stranger's lock, ttl 20ms, did not expire")
			held := mustObtain(t, l, "job", "owner", time.Second)

			if err := tt.op(stale); !errors.Is(err, tt.want) {
				t.Fatalf("%s by the stranger: %v, want %v", tt.name, err, tt.want)
			}
			if d, err := stale.TTL(context.Background()); err != nil || d != 0 {
				t.Errorf("stranger's TTL: %v, %v; want 0, nil", d, err)
			}
			if d, err := held.TTL(context.Background()); err != nil || d <= 0 || d > time.Second {
				t.Errorf("owner's TTL: %v, %v; want in (0, 1s]", d, err)
			}
			wantHeld(t, l, "job")
			if err := held.Release(context.Background()); err != nil {
				t.Fatalf("owner's release: %v", err)
			}
			wantFree(t, l, "job")
		})
	}
}

func TestReentrant(t *testing.T) {
	t.Parallel()
	l, _ := newLocker(t)
	ctx := context.Background()
	first := mustObtain(t, l, "job", "me", time.Second)
	second := mustObtain(t, l, "job", "me", 3*time.Second)
	if d, _ := first.TTL(ctx); d <= time.Second {
		t.Errorf("TTL after obtaining again: %v, want the renewed ttl 3s", d)
	}

	if err := first.Release(ctx); err != nil {
		t.Fatalf("first release: %v", err)
	}
	wantHeld(t, l, "job")
	// A hold is released once: releasing it again must not free the other.
	if err := first.Release(ctx); !errors.Is(err, lock.ErrNotHeld) {
		t.Fatalf("first hold released twice: %v, want ErrNotHeld", err)
	}
	wantHeld(t, l, "job")
	if err := second.Refresh(ctx, time.Second); err != nil {
		t.Fatalf("refresh the remaining hold: %v", err)
	}

	if err := second.Release(ctx); err != nil {
		t.Fatalf("second release: %v", err)
	}
	wantFree(t, l, "job")
	if err := second.Refresh(ctx, time.Second); !errors.Is(err, lock.ErrLockLost) {
		t.Fatalf("refresh after the last release: %v, want ErrLockLost", err)
	}
}

func TestKeyHasHashTag(t *testing.T) {
	t.Parallel()
	l := lock.New(nil, "seckill")
	if got, want := l.Key("sweeper"), "seckill:lock:{sweeper}"; got != want {
		t.Errorf("Key = %q, want %q", got, want)
	}
}
