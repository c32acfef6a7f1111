package stocksync

import (
	"context"
	"errors"
	"time"

	"github.com/seckill/seckill/internal/sync/lock"
)

// Locker runs a function while holding a named lock shared by every server,
// and claims a job's periods (lock.Locker does both).
type Locker interface {
	Run(ctx context.Context, name, owner string, ttl time.Duration, fn func(ctx context.Context) error) error
	ClaimPeriod(ctx context.Context, name string, every time.Duration, now time.Time) (bool, error)
}

// JobsConfig times the singleton jobs.
type JobsConfig struct {
	PaymentTimeout time.Duration // unpaid orders are cancelled after this
	SweepEvery     time.Duration // how often to look for them
	ReconcileEvery time.Duration // how often to check and repair every sale
}

// Jobs runs the sweeper and the reconciliation in every server. Each period
// of each job is claimed by one server only, and the lock makes sure a slow
// run never overlaps the next one elsewhere: however many servers run, each
// job runs once per period.
type Jobs struct {
	s     *Syncer
	lock  Locker
	owner string
	cfg   JobsConfig
	// OnRun, if set, is told of every run this server makes (metrics).
	OnRun func(job string)
}

// NewJobs returns the jobs of one server.
func (s *Syncer) NewJobs(l Locker, cfg JobsConfig) *Jobs {
	return &Jobs{s: s, lock: l, owner: lock.NewOwner(), cfg: cfg}
}

// Run ticks until ctx ends.
func (j *Jobs) Run(ctx context.Context) error {
	sweep := time.NewTicker(j.cfg.SweepEvery)
	defer sweep.Stop()
	rec := time.NewTicker(j.cfg.ReconcileEvery)
	defer rec.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-sweep.C:
			j.once(ctx, "sweeper", j.cfg.SweepEvery, j.Sweep)
		case <-rec.C:
			j.once(ctx, "reconcile", j.cfg.ReconcileEvery, func(ctx context.Context) error { _, err := j.s.Reconcile(ctx); return err })
		}
	}
}

func (j *Jobs) once(ctx context.Context, name string, every time.Duration, fn func(context.Context) error) {
	mine, err := j.lock.ClaimPeriod(ctx, name, every, time.Now())
	if err == nil && mine {
		err = j.lock.Run(ctx, name, j.owner, 30*time.Second, func(ctx context.Context) error {
			if j.OnRun != nil {
				j.OnRun(name)
			}
			return fn(ctx)
		})
	}
	switch {
	case err == nil || ctx.Err() != nil:
	case errors.Is(err, lock.ErrNotObtained):
		// This server claimed the period, but the last run (here or on
		// another server) is still going: the period has no run of its own.
		j.s.log.Info("job period skipped: the previous run still holds the lock", "job", name)
	default:
		j.s.log.Warn("job failed", "job", name, "err", err)
	}
}

// Sweep cancels unpaid orders past the payment timeout and finishes any
// cancellation whose Redis step was interrupted.
func (j *Jobs) Sweep(ctx context.Context) error {
	for {
		n, err := j.s.CancelOverdue(ctx, j.cfg.PaymentTimeout, 200)
		if err != nil || n < 200 {
			if err == nil {
				_, err = j.s.FinishReleases(ctx, 500)
			}
			return err
		}
	}
}
