package ratelimit_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/ratelimit"
	"github.com/seckill/seckill/internal/testenv"
)

// TestNoScriptOnOneShardCountsOnce: on a cluster, a master that lost its
// script cache (a replica promoted by a failover starts with none) fails
// only its share of a batch with NOSCRIPT. Only those checks run again: the
// others have counted already, and counting them twice would refuse
// shoppers who made one request.
//
// Serial: SCRIPT FLUSH empties a cluster master's whole script cache.
func TestNoScriptOnOneShardCountsOnce(t *testing.T) {
	rdb, prefix := testenv.RedisOn(t, testenv.Cluster(t))
	cc := rdb.(*redis.ClusterClient)
	l := ratelimit.New(rdb, prefix, time.Now)
	ctx := context.Background()
	once := ratelimit.Rate{PerSecond: 0.001, Burst: 1} // one request, then a refusal for 1000 s
	batch := func(round string) []ratelimit.Verdict {
		checks := make([]ratelimit.Check, 30) // spread over every master by their hash tags
		for i := range checks {
			checks[i] = ratelimit.Check{Key: l.Key("shopper", fmt.Sprintf("%s%d", round, i), "purchase"), Rate: once}
		}
		out := make([]ratelimit.Verdict, len(checks))
		l.AllowBatch(ctx, checks, out)
		return out
	}
	batch("warm") // the script is loaded on every master

	flushed, err := cc.MasterForKey(ctx, l.Key("shopper", "fresh0", "purchase"))
	if err != nil {
		t.Fatal(err)
	}
	if err := flushed.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	for i, v := range batch("fresh") {
		if !v.OK || v.Err != nil {
			t.Fatalf("check %d, the first request of its shopper: %+v; want allowed", i, v)
		}
	}
	for i, v := range batch("fresh") {
		if v.OK {
			t.Fatalf("check %d, the second request of its shopper: allowed; want refused", i)
		}
	}
}
