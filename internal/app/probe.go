package app

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/metrics"
)

// ready checks what /readyz reports: MySQL and Redis answer and Redis holds
// the scripts (a restarted Redis has lost them; Script.Run reloads on demand,
// and this check reloads them eagerly).
func (a *App) ready(ctx context.Context) map[string]string {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	failed := map[string]string{}
	if sqlDB, err := a.db.DB(); err != nil || sqlDB.PingContext(ctx) != nil {
		failed["mysql"] = "unreachable"
	}
	if err := a.rdb.Ping(ctx).Err(); err != nil {
		failed["redis"] = "unreachable"
		return failed
	}
	ok, err := a.stock.ScriptsLoaded(ctx)
	if err == nil && !ok {
		err = a.stock.LoadScripts(ctx)
	}
	if err != nil {
		failed["scripts"] = "not loaded"
	}
	return failed
}

// streamLag is how far persistence is behind, over every warm sale's
// stream: the orders reserved in Redis and not yet persisted, and the age of
// the oldest. Persisted entries are deleted from their stream, so a stream's
// first entry is its oldest order not yet in MySQL, and its id holds the
// time Redis took it.
func (a *App) streamLag() metrics.Lag {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	ids, err := a.stock.WarmItems(ctx)
	if err != nil {
		return metrics.Lag{Pending: -1}
	}
	lens := make([]*redis.IntCmd, len(ids))
	firsts := make([]*redis.XMessageSliceCmd, len(ids))
	a.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			stream := a.keys.Item(id).Stream()
			lens[i], firsts[i] = p.XLen(ctx, stream), p.XRangeN(ctx, stream, "-", "+", 1)
		}
		return nil
	})
	var lag metrics.Lag
	now := time.Now()
	for i := range ids {
		lag.Pending += float64(lens[i].Val())
		if msgs := firsts[i].Val(); len(msgs) > 0 {
			if ms, _, err := keyspace.StreamPos(msgs[0].ID); err == nil {
				lag.OldestSeconds = max(lag.OldestSeconds, now.Sub(time.UnixMilli(int64(ms))).Seconds())
			}
		}
	}
	return lag
}

// How often the background check probes the stores for
// seckill_dependency_up: an alert waits a minute or more, so a few seconds
// is prompt enough and costs two pings.
const dependencyCheckEvery = 2 * time.Second

// watchDependencies runs the readiness checks in the background until ctx
// ends and records which stores answered.
func (a *App) watchDependencies(ctx context.Context) error {
	t := time.NewTicker(dependencyCheckEvery)
	defer t.Stop()
	for {
		failed := a.ready(ctx)
		a.metrics.DependencyUp("mysql", failed["mysql"] == "")
		a.metrics.DependencyUp("redis", failed["redis"] == "")
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
