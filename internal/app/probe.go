package app

import (
	"context"
	"time"
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

// streamLag is the number of orders reserved in Redis and not yet persisted,
// summed over every warm sale's stream.
func (a *App) streamLag() float64 {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	ids, err := a.stock.WarmItems(ctx)
	if err != nil {
		return -1
	}
	var total int64
	for _, id := range ids {
		n, _ := a.rdb.XLen(ctx, a.keys.Item(id).Stream()).Result()
		total += n
	}
	return float64(total)
}
