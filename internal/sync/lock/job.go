package lock

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// jobTTL is how long a job's lock outlives a server that died holding it.
// A live holder keeps refreshing it, however long the run takes.
const jobTTL = 30 * time.Second

// Job is periodic work that must run once per period in the whole fleet.
type Job struct {
	Name  string
	Every time.Duration
	Run   func(ctx context.Context) error
}

// Jobs runs one server's share of the fleet's periodic jobs.
type Jobs struct {
	l     *Locker
	owner string
	log   *slog.Logger
	// OnRun, if set, is told of every run this server makes (metrics).
	OnRun func(job string)
}

// NewJobs returns the job runner of one server.
func (l *Locker) NewJobs(log *slog.Logger) *Jobs {
	return &Jobs{l: l, owner: NewOwner(), log: log}
}

// Run ticks every job until ctx ends, and returns nil then. Each period of
// each job is claimed by one server only (ClaimPeriod), and the job's lock
// makes sure a slow run never overlaps the next one elsewhere: however many
// servers run, each job runs once per period. On one server the jobs run
// one at a time, and a tick that falls while another job runs is dropped,
// as a time.Ticker drops ticks.
func (j *Jobs) Run(ctx context.Context, jobs ...Job) error {
	if len(jobs) == 0 {
		<-ctx.Done()
		return nil
	}
	next := make([]time.Time, len(jobs))
	for i, job := range jobs {
		next[i] = time.Now().Add(job.Every)
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		i := earliest(next)
		timer.Reset(time.Until(next[i]))
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
		}
		j.once(ctx, jobs[i])
		for !next[i].After(time.Now()) {
			next[i] = next[i].Add(jobs[i].Every)
		}
	}
}

func earliest(ts []time.Time) int {
	at := 0
	for i, t := range ts {
		if t.Before(ts[at]) {
			at = i
		}
	}
	return at
}

func (j *Jobs) once(ctx context.Context, job Job) {
	mine, err := j.l.ClaimPeriod(ctx, job.Name, job.Every, time.Now())
	if err == nil && mine {
		err = j.l.Run(ctx, job.Name, j.owner, jobTTL, func(ctx context.Context) error {
			if j.OnRun != nil {
				j.OnRun(job.Name)
			}
			return job.Run(ctx)
		})
	}
	switch {
	case err == nil || ctx.Err() != nil:
	case errors.Is(err, ErrNotObtained):
		// This server claimed the period, but the last run (here or on
		// another server) is still going: the period has no run of its own.
		j.log.Info("job period skipped: the previous run still holds the lock", "job", job.Name)
	default:
		j.log.Warn("job failed", "job", job.Name, "err", err)
	}
}
