package lock

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// releaseTimeout bounds the release at the end of Run, which runs on a
// context detached from the caller's so that a shutdown still frees the lock.
const releaseTimeout = 5 * time.Second

// errFinished cancels a job's context once Run is done with it.
var errFinished = errors.New("lock: job finished")

// Run obtains the lock called name for owner and runs fn while holding it,
// then releases it, also when fn panics. While fn runs a watchdog refreshes
// the lock every ttl/3; if the lock is lost, or cannot be refreshed before it
// would expire, fn's context is cancelled with a cause matching ErrLockLost
// (see context.Cause). The watchdog lives only as long as fn.
//
// It returns ErrNotObtained (or a Redis error) without calling fn if the
// lock cannot be obtained. Otherwise it returns fn's error; if the lock was
// lost while fn ran, the error also matches ErrLockLost, even when fn
// returned nil; if fn succeeded but the release failed, the release's error.
func (l *Locker) Run(ctx context.Context, name, owner string, ttl time.Duration, fn func(ctx context.Context) error) (err error) {
	lk, err := l.Obtain(ctx, name, owner, ttl)
	if err != nil {
		return err
	}
	jobCtx, cancel := context.WithCancelCause(ctx)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		watch(jobCtx, cancel, lk, ttl)
	}()
	defer func() {
		cancel(errFinished)
		<-watched // no refresh may run after the release
		rctx, stop := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
		defer stop()
		err = runResult(err, context.Cause(jobCtx), lk.Release(rctx))
	}()
	return fn(jobCtx)
}

// runResult combines fn's error, the job context's cause and the release's
// error into Run's result.
func runResult(fnErr, cause, releaseErr error) error {
	switch {
	case !errors.Is(cause, ErrLockLost) && fnErr == nil:
		return releaseErr
	case !errors.Is(cause, ErrLockLost):
		return fnErr
	case fnErr == nil: // the release failing with ErrNotHeld says nothing new
		return cause
	}
	return errors.Join(fnErr, cause)
}

// watch refreshes lk every ttl/3 until ctx ends. It cancels ctx if the lock
// is lost, or if Redis errors leave no refresh possible before the lock
// expires: from then on the lock may be someone else's.
func watch(ctx context.Context, cancel context.CancelCauseFunc, lk *Lock, ttl time.Duration) {
	every := ttl / 3
	tick := time.NewTicker(every)
	defer tick.Stop()
	renewed := time.Now() // the lock expires at renewed+ttl at the latest
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		sent := time.Now()
		err := refreshBy(ctx, lk, ttl, renewed.Add(ttl))
		switch {
		case ctx.Err() != nil:
			return
		case err == nil:
			renewed = sent
		case errors.Is(err, ErrLockLost):
			cancel(err)
			return
		case time.Until(renewed.Add(ttl)) <= every:
			cancel(fmt.Errorf("%w: no refresh before expiry: %w", ErrLockLost, err))
			return
		}
	}
}

// refreshBy refreshes lk, giving up at expiry: a Redis call hanging past
// it must not keep the job running on a lock that may be someone else's.
func refreshBy(ctx context.Context, lk *Lock, ttl time.Duration, expiry time.Time) error {
	ctx, cancel := context.WithDeadline(ctx, expiry)
	defer cancel()
	return lk.Refresh(ctx, ttl)
}

// jitter spreads retries of many contenders: a duration in [d/2, d].
func jitter(d time.Duration) time.Duration { return d/2 + rand.N(d/2+1) }
