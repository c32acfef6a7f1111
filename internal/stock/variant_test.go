package stock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/stock"
	"github.com/seckill/seckill/internal/testenv"
)

// drop is a sale of three sizes (ids 11, 12, 13) with a limit of 2 units in
// the whole sale and 1 for size 12.
func drop() stock.State {
	return stock.State{Variants: map[int64]int64{11: 1, 12: 3, 13: 2},
		Meta: stock.Meta{StartsAt: t0, EndsAt: t0.Add(time.Hour), Limit: 2, VariantLimits: map[int64]int{11: 2, 12: 1, 13: 2}}}
}

// TestReserveVariants runs one batch mixing the sizes of a drop through the
// script, on a single Redis and on a cluster: every answer is the one the
// request would get alone, in order, and the sale's total moves with its
// sizes.
func TestReserveVariants(t *testing.T) {
	t.Parallel()
	for _, tgt := range testenv.RedisTargets(t) {
		t.Run(tgt.Name, func(t *testing.T) {
			t.Parallel()
			rdb, prefix := testenv.RedisOn(t, tgt.Redis)
			s := stock.NewStore(rdb, keyspace.New(prefix))
			warm(t, s, 7, drop())
			at := t0.Add(time.Minute)
			r := func(user string, variant int64, qty int) stock.Request {
				q := req(user, qty, at)
				q.ItemID, q.VariantID = 7, variant
				return q
			}
			reqs := []stock.Request{
				r("ann", 11, 1), // the last unit of 11
				r("bob", 11, 1), // 11 is gone: 12 and 13 are offered
				r("ann", 13, 1), // ann holds an order in this sale already
				r("cy", 12, 2),  // above size 12's own limit
				r("cy", 12, 1),
				r("dee", 0, 1),  // a drop needs a size named
				r("dee", 99, 1), // not this sale's
				r("dee", 13, 2), // the sale's limit allows 2
			}
			out := make([]stock.Outcome, len(reqs))
			s.ReserveBatch(context.Background(), reqs, out)
			var so *stock.SoldOutError
			var already *stock.AlreadyPurchasedError
			switch {
			case out[0].Err != nil || out[0].VariantID != 11 || out[0].StockLeft != 0 || out[0].SaleLeft != 5:
				t.Fatalf("ann: %+v", out[0])
			case !errors.As(out[1].Err, &so) || len(so.Available) != 2 || so.Available[0] != 12 || so.Available[1] != 13 || so.SaleLeft != 5:
				t.Fatalf("bob: %+v %v", out[1], out[1].Err)
			case !errors.As(out[2].Err, &already) || already.Existing.OrderID != out[0].OrderID || already.Existing.VariantID != 11:
				t.Fatalf("ann again: %v", out[2].Err)
			case !errors.Is(out[3].Err, stock.ErrOverLimit):
				t.Fatalf("cy for 2 of size 12: %v", out[3].Err)
			case out[4].Err != nil || out[4].StockLeft != 2:
				t.Fatalf("cy: %+v", out[4])
			case !errors.Is(out[5].Err, stock.ErrVariantRequired) || !errors.Is(out[6].Err, stock.ErrVariantNotFound):
				t.Fatalf("dee without a size, then another sale's: %v, %v", out[5].Err, out[6].Err)
			case out[7].Err != nil || out[7].StockLeft != 0 || out[7].SaleLeft != 2:
				t.Fatalf("dee: %+v", out[7])
			}
			levels, err := s.Levels(context.Background(), []int64{7})
			if l := levels[7]; err != nil || l.Total != 2 || l.Variants[11] != 0 || l.Variants[12] != 2 || l.Variants[13] != 0 {
				t.Fatalf("levels = %+v, %v", levels, err)
			}
			// A cancel gives the unit back to its own size and the sale.
			if ok, err := s.Release(context.Background(), 7, 13, "dee", out[7].OrderID); !ok || err != nil {
				t.Fatalf("release: %v %v", ok, err)
			}
			if n, err := s.Adjust(context.Background(), 7, 12, -2); err != nil || n != 0 {
				t.Fatalf("adjust size 12 to nothing: %d %v", n, err)
			}
			if _, err := s.Adjust(context.Background(), 7, 12, -1); !errors.Is(err, stock.ErrStockConflict) {
				t.Fatalf("adjust below zero: %v", err)
			}
			levels, _ = s.Levels(context.Background(), []int64{7})
			if l := levels[7]; l.Total != 2 || l.Variants[12] != 0 || l.Variants[13] != 2 {
				t.Fatalf("levels after release and adjust = %+v", l)
			}
		})
	}
}

// TestReserveGuardsOfOlderState: a sale Redis holds as the release before
// variants warmed it (no per-variant stock) is not warm, so the purchase
// warms it from MySQL instead of failing; and the sale's own count is a
// second guard, so a server that took from the sale alone (an older release
// during a deploy) is never sold past.
func TestReserveGuardsOfOlderState(t *testing.T) {
	t.Parallel()
	s, rdb, keys := newStore(t)
	ctx := context.Background()
	warm(t, s, 7, drop())
	at := t0.Add(time.Minute)
	r := req("ann", 1, at)
	r.ItemID, r.VariantID = 7, 12
	rdb.Set(ctx, keys.Item(7).Stock(), 0, 0) // another release sold the rest
	if _, err := s.Reserve(ctx, r); !errors.Is(err, stock.ErrSoldOut) {
		t.Fatalf("size 12 has 3 but the sale none: %v, want sold out", err)
	}
	rdb.Del(ctx, keys.Item(7).VariantStock())
	if _, err := s.Reserve(ctx, r); !errors.Is(err, stock.ErrNotWarmed) {
		t.Fatalf("without per-variant stock: %v, want not warmed", err)
	}
}
