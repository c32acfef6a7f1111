package stock_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/stock"
	"github.com/seckill/seckill/internal/testenv"
)

// TestPurgeRemovesEveryKeyOfTheSale, on one Redis and on a Redis Cluster:
// a sale with orders, limit buckets, a waiting room, dead letters and a key
// nobody named yet is purged to nothing, another sale is untouched, and a
// purchase after the purge leaves no key behind.
func TestPurgeRemovesEveryKeyOfTheSale(t *testing.T) {
	t.Parallel()
	onEachRedis(t, func(t *testing.T, s *stock.Store, rdb redis.UniversalClient, keys keyspace.Space) {
		ctx := context.Background()
		for _, id := range []int64{1, 2} {
			if err := s.Warm(ctx, id, func(context.Context, []keyspace.Entry) (stock.State, error) { return sale(10, 1), nil }); err != nil {
				t.Fatal(err)
			}
		}
		s.SetLimits(stock.Limits{ShopperEvery: time.Second, ShopperBurst: 2, ClientEvery: time.Second, ClientBurst: 10})
		at := t0.Add(time.Minute)
		for _, u := range []string{"ann", "bob"} {
			if _, err := s.Reserve(ctx, limitedReq(u, "10.0.0.1", at)); err != nil {
				t.Fatal(err)
			}
		}
		k := keys.Item(1)
		seed := rdb.Pipeline()
		seed.ZAdd(ctx, k.RoomEarly(), redis.Z{Score: 1, Member: "cy"})
		seed.HSet(ctx, k.RoomAdmitted(), "cy", 1)
		seed.XAdd(ctx, &redis.XAddArgs{Stream: k.DeadLetters(), Values: map[string]any{"id": "x", "reason": "test"}})
		seed.Set(ctx, k.Stock()[:len(k.Stock())-len("stock")]+"not-named-yet", 1, 0)
		if _, err := seed.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		before := testenv.CountKeys(t, rdb, k.Pattern())
		if before < 12 { // stock vstock meta buyers idem orders returns, 4 limit buckets, room, dead, ...
			t.Fatalf("%d keys of the sale before the purge; the seeding did not take", before)
		}
		n, err := s.Purge(ctx, 1)
		if err != nil || n != before {
			t.Fatalf("purge: %d, %v; want all %d keys", n, err, before)
		}
		if left := testenv.CountKeys(t, rdb, k.Pattern()); left != 0 {
			t.Fatalf("%d keys of the sale left after the purge", left)
		}
		if warm, _ := s.WarmItems(ctx); !slices.Equal(warm, []int64{2}) {
			t.Fatalf("registry after the purge: %v, want [2]", warm)
		}
		if levels, _ := s.Levels(ctx, []int64{1, 2}); len(levels) != 1 || levels[2].Total != 10 {
			t.Fatalf("stock after purging sale 1: %v, want sale 2 untouched at 10", levels)
		}
		if _, err := s.Reserve(ctx, limitedReq("dee", "10.0.0.2", at)); !errors.Is(err, stock.ErrNotWarmed) {
			t.Fatalf("purchase after the purge: %v, want ErrNotWarmed", err)
		}
		if left := testenv.CountKeys(t, rdb, k.Pattern()); left != 0 {
			t.Fatalf("a refused purchase left %d keys of the purged sale", left)
		}
		if n, err := s.Purge(ctx, 1); err != nil || n != 0 {
			t.Fatalf("purge again: %d, %v; want nothing to do", n, err)
		}
	})
}
