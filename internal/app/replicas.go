package app

import (
	"context"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/ctxtime"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/stock"
)

// replicaCheckEvery is how often a server that decides its minimum of
// replicas itself counts them again: a replica attached after start-up is
// waited for within this.
const replicaCheckEvery = 10 * time.Second

// applyDurability sets how many replicas a reservation needs before its
// 202: the configured count, or, with config.AutoReplicas, 1 when every
// primary has a replica connected. Once it is 1 it stays 1: a replica that
// goes away makes purchases answer 503 replication_timeout, not quietly
// lose what a failover would lose; SECKILL_REDIS_MIN_REPLICAS=0 turns the
// wait off.
func (a *App) applyDurability(ctx context.Context) {
	d := stock.Durability{MinReplicas: a.cfg.MinReplicas, Timeout: a.cfg.ReplicaTimeout}
	if a.cfg.MinReplicas == config.AutoReplicas {
		d.MinReplicas = a.stock.Durability().MinReplicas
		n, err := redisconn.Replicas(ctx, a.rdb)
		if err != nil {
			a.log.Warn("could not count redis replicas; keeping the last count", "err", err)
		} else if n > 0 {
			d.MinReplicas = 1
		}
	}
	if a.cfg.MinReplicas != config.AutoReplicas && d.MinReplicas > 0 {
		a.warnTooFewReplicas(ctx, d.MinReplicas)
	}
	if d != a.stock.Durability() {
		a.log.Info("purchases wait for redis replicas", "min_replicas", d.MinReplicas, "timeout", d.Timeout)
	}
	a.stock.SetDurability(d)
}

// warnTooFewReplicas says at start when an explicit minimum exceeds the
// replicas some primary has: every purchase on it would answer 503
// replication_timeout until enough replicas are attached.
func (a *App) warnTooFewReplicas(ctx context.Context, want int) {
	n, err := redisconn.Replicas(ctx, a.rdb)
	if err != nil {
		a.log.Warn("could not count redis replicas", "err", err)
		return
	}
	if n < want {
		a.log.Warn("SECKILL_REDIS_MIN_REPLICAS exceeds the replicas some redis primary has: its purchases answer 503 "+
			"replication_timeout until enough are attached", "min_replicas", want, "fewest_replicas", n)
	}
}

// watchReplicas re-counts the replicas until ctx ends, when the server
// decides its minimum itself.
func (a *App) watchReplicas(ctx context.Context) error {
	if a.cfg.MinReplicas != config.AutoReplicas {
		return nil
	}
	return ctxtime.Every(ctx, replicaCheckEvery, func() { a.applyDurability(ctx) })
}
