package stock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/stock"
)

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
