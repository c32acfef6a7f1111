// Package ratelimit limits how often a shopper or a client IP may act, with
// one Redis Lua script (GCRA) per limit, all checked in one round trip.
package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/coalesce"
	"github.com/seckill/seckill/lua"
)

// Rate is a sustained rate with a burst; a zero PerSecond means no limit.
type Rate struct {
	PerSecond float64
	Burst     int
}

// Off reports whether the rate limits nothing.
func (r Rate) Off() bool { return r.PerSecond <= 0 }

// Every is the emission interval: the time one request takes at the
// sustained rate; 0 for a rate that limits nothing.
func (r Rate) Every() time.Duration {
	if r.Off() {
		return 0
	}
	return time.Duration(1e6/r.PerSecond) * time.Microsecond
}

// Check is one limit to count a request against.
type Check struct {
	Key  string
	Rate Rate
}

// Limiter checks limits in Redis.
type Limiter struct {
	rdb     redis.UniversalClient
	prefix  string
	script  *redis.Script
	now     func() time.Time
	batcher *coalesce.Batcher[Check, Verdict]
}

// Verdict is the answer to one check.
type Verdict struct {
	OK   bool
	Wait time.Duration // until the check would pass, when refused
	Err  error
}

// New returns a limiter whose keys start with prefix.
func New(rdb redis.UniversalClient, prefix string, now func() time.Time) *Limiter {
	l := &Limiter{rdb: rdb, prefix: prefix, script: redis.NewScript(lua.RateLimit), now: now}
	l.batcher = coalesce.New(4, 128, l.AllowBatch)
	return l
}

// Run makes concurrent single checks share round trips until ctx ends.
func (l *Limiter) Run(ctx context.Context) error { return l.batcher.Run(ctx) }

// OnBatch tells observe the size of every batch of checks.
func (l *Limiter) OnBatch(observe func(n int)) { l.batcher.Observe = observe }

// AllowOne counts the request against one limit; once Run has started,
// concurrent calls share a round trip. If Redis cannot be asked, the
// verdict carries the error and OK is true.
func (l *Limiter) AllowOne(ctx context.Context, c Check) Verdict {
	if c.Rate.Off() {
		return Verdict{OK: true}
	}
	return l.batcher.Do(ctx, c)
}

// AllowBatch counts one request against each check, in one pipeline, and
// writes each check's verdict to out.
func (l *Limiter) AllowBatch(ctx context.Context, checks []Check, out []Verdict) {
	l.allowBatch(ctx, checks, out, true)
}

// allowBatch runs the pipeline; with retry, it loads the script and runs
// again only the checks that met NOSCRIPT. On a cluster that is one shard (a
// replica promoted without the script cache): the checks the other shards
// ran have counted already, and running them again would count them twice.
func (l *Limiter) allowBatch(ctx context.Context, checks []Check, out []Verdict, retry bool) {
	now := l.now().UnixMicro()
	cmds := make([]*redis.Cmd, len(checks))
	_, _ = l.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, c := range checks {
			cmds[i] = l.script.EvalSha(ctx, p, []string{c.Key}, now, c.Rate.Every().Microseconds(), c.Rate.Burst)
		}
		return nil
	})
	var missing []int
	for i, c := range cmds {
		if retry && isNoScript(c.Err()) {
			missing = append(missing, i)
			continue
		}
		out[i] = verdict(c)
	}
	if len(missing) == 0 {
		return
	}
	if lerr := l.script.Load(ctx, l.rdb).Err(); lerr != nil {
		for _, i := range missing {
			out[i] = Verdict{OK: true, Err: fmt.Errorf("load rate limit script: %w", lerr)}
		}
		return
	}
	again, verdicts := make([]Check, len(missing)), make([]Verdict, len(missing))
	for j, i := range missing {
		again[j] = checks[i]
	}
	l.allowBatch(ctx, again, verdicts, false)
	for j, i := range missing {
		out[i] = verdicts[j]
	}
}

// Key names a limit: kind ("shopper", "ip"), who, and the action. The hash
// tag keeps each limit in one cluster slot.
func (l *Limiter) Key(kind, who, action string) string {
	return l.prefix + ":rl:{" + kind + ":" + who + "}:" + action
}

// Allow counts the request against every check that is on, in one round
// trip, and returns how long to wait if any refused. Each check counts
// independently, as a client's further requests would.
func (l *Limiter) Allow(ctx context.Context, checks ...Check) (bool, time.Duration, error) {
	on := make([]Check, 0, len(checks))
	for _, c := range checks {
		if !c.Rate.Off() {
			on = append(on, c)
		}
	}
	if len(on) == 0 {
		return true, 0, nil
	}
	out := make([]Verdict, len(on))
	l.AllowBatch(ctx, on, out)
	var wait time.Duration
	for _, v := range out {
		if v.Err != nil {
			return true, 0, v.Err
		}
		wait = max(wait, v.Wait)
	}
	return wait == 0, wait, nil
}

// refused is lua/ratelimit.lua's first value when the request is over the
// limit (1: allowed and counted).
const refused = 0

func verdict(c *redis.Cmd) Verdict {
	res, err := c.Int64Slice()
	if err != nil || len(res) != 2 {
		return Verdict{OK: true, Err: fmt.Errorf("rate limit reply %v: %w", res, err)}
	}
	if res[0] == refused {
		return Verdict{Wait: time.Duration(res[1]) * time.Microsecond}
	}
	return Verdict{OK: true}
}

func isNoScript(err error) bool {
	var rerr redis.Error
	return errors.As(err, &rerr) && strings.HasPrefix(rerr.Error(), "NOSCRIPT")
}
