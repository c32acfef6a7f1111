package stock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/stock"
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
	onEachRedis(t, func(t *testing.T, s *stock.Store, rdb redis.UniversalClient, keys keyspace.Space) {
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

// TestReservePrice: the script takes each order at its variant's price in
// the sale's meta at that moment, answers it, queues it with the order and
// answers it again on a replay after the price changed; a meta without the
// variant's price (written by an older server, or a failed warm) answers
// not warmed and takes nothing, so a warm writes MySQL's price. On a single
// Redis and on a cluster, through the batch path.
func TestReservePrice(t *testing.T) {
	t.Parallel()
	onEachRedis(t, func(t *testing.T, s *stock.Store, rdb redis.UniversalClient, keys keyspace.Space) {
		st := drop()
		st.Meta.VariantPrices = map[int64]int64{11: 1000, 12: 2000} // none for 13
		warm(t, s, 7, st)
		ctx, at := context.Background(), t0.Add(time.Minute)
		r := func(user string, variant int64) stock.Request {
			q := req(user, 1, at)
			q.ItemID, q.VariantID, q.IdempotencyKey = 7, variant, "key-"+user
			return q
		}
		first := batch(t, s, r("ann", 11), r("bob", 12))
		out := make([]stock.Outcome, 1)
		s.ReserveBatch(ctx, []stock.Request{r("cy", 13)}, out)
		if !errors.Is(out[0].Err, stock.ErrNotWarmed) {
			t.Fatalf("cy buys size 13, which has no price in the meta: %+v, want stock.ErrNotWarmed", out[0])
		}
		st.Meta.VariantPrices = map[int64]int64{11: 5000, 12: 6000}
		if err := s.SetMeta(ctx, 7, st.Meta); err != nil {
			t.Fatal(err)
		}
		second := batch(t, s, r("ann", 11), r("dee", 12))
		if !second[0].Replayed || second[0].OrderID != first[0].OrderID {
			t.Fatalf("ann's replay: %+v, want order %s", second[0], first[0].OrderID)
		}
		want := map[string]int64{"order-ann": 1000, "order-bob": 2000, "order-dee": 6000}
		for _, o := range append(first, second...) {
			if got := price(o.UnitPriceCents); got != want[o.OrderID] {
				t.Errorf("answer for %s: price %d, want %d", o.OrderID, got, want[o.OrderID])
			}
		}
		msgs, err := rdb.XRange(ctx, keys.Item(7).Stream(), "-", "+").Result()
		if err != nil || len(msgs) != 3 {
			t.Fatalf("stream: %d entries, %v; want 3", len(msgs), err)
		}
		for _, m := range msgs {
			e, err := keyspace.ParseEntry(m.ID, m.Values)
			if err != nil || price(e.UnitPriceCents) != want[e.OrderID] {
				t.Errorf("entry %v: price %d, %v; want %d", m.Values, price(e.UnitPriceCents), err, want[e.OrderID])
			}
		}
	})
}

// batch reserves reqs in one batch and fails the test on any refusal.
func batch(tb testing.TB, s *stock.Store, reqs ...stock.Request) []stock.Reservation {
	tb.Helper()
	out := make([]stock.Outcome, len(reqs))
	s.ReserveBatch(context.Background(), reqs, out)
	res := make([]stock.Reservation, len(out))
	for i, o := range out {
		if o.Err != nil {
			tb.Fatalf("%s: %v", reqs[i].UserID, o.Err)
		}
		res[i] = o.Reservation
	}
	return res
}

// price is p's value, or -1 for none.
func price(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

// TestIdempotencyKeyNamesOneVariant: in a drop, a key names one purchase of
// one size. Its retry naming that size, or naming none, gets the order back;
// the key sent again for another size is a different request, refused as
// one with another quantity is, and nothing more is reserved.
func TestIdempotencyKeyNamesOneVariant(t *testing.T) {
	t.Parallel()
	s, rdb, keys := newStore(t)
	warm(t, s, 1, stock.State{Variants: map[int64]int64{1: 5, 2: 5},
		Meta: stock.Meta{StartsAt: t0, EndsAt: t0.Add(time.Hour), Limit: 1}})
	ctx := context.Background()
	r := req("alice", 1, t0)
	r.VariantID, r.IdempotencyKey = 1, "key-1"
	first, err := s.Reserve(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []int64{1, 0} {
		r.OrderID, r.VariantID = "retry-id", v
		if again, err := s.Reserve(ctx, r); err != nil || !again.Replayed || again.OrderID != first.OrderID {
			t.Fatalf("retry naming variant %d = %+v, %v; want order %s replayed", v, again, err, first.OrderID)
		}
	}
	r.VariantID = 2
	if res, err := s.Reserve(ctx, r); !errors.Is(err, stock.ErrIdempotencyConflict) {
		t.Fatalf("same key, other size: %+v, %v; want ErrIdempotencyConflict", res, err)
	}
	if n := rdb.XLen(ctx, keys.Item(1).Stream()).Val(); n != 1 {
		t.Fatalf("stream holds %d orders, want 1", n)
	}
}
