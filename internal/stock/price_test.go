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

// TestReservePrice: the script takes each order at its variant's price in
// the sale's meta at that moment, answers it, queues it with the order and
// answers it again on a replay after the price changed; a meta without the
// variant's price (written by an older server, or a failed warm) answers
// not warmed and takes nothing, so a warm writes MySQL's price. On a single
// Redis and on a cluster, through the batch path.
func TestReservePrice(t *testing.T) {
	t.Parallel()
	for _, tgt := range testenv.RedisTargets(t) {
		t.Run(tgt.Name, func(t *testing.T) {
			t.Parallel()
			rdb, prefix := testenv.RedisOn(t, tgt.Redis)
			keys := keyspace.New(prefix)
			s := stock.NewStore(rdb, keys)
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
