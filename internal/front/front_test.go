package front_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/front"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/stock"
	"github.com/seckill/seckill/internal/testenv"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// counted is the real stock store, counting the purchases that reach
// Redis: what the front door answers itself must not.
type counted struct {
	*stock.Store
	calls atomic.Int64
}

func (c *counted) Reserve(ctx context.Context, r stock.Request) (stock.Reservation, error) {
	c.calls.Add(1)
	return c.Store.Reserve(ctx, r)
}

// newSale warms item 1 (one variant, id 1, units of it, one per shopper)
// into a Redis key prefix of the test's own.
func newSale(tb testing.TB, units int64) *counted {
	tb.Helper()
	rdb, prefix := testenv.Redis(tb)
	st := stock.NewStore(rdb, keyspace.New(prefix))
	state := stock.State{Variants: map[int64]int64{1: units},
		Meta: stock.Meta{StartsAt: t0, EndsAt: t0.Add(time.Hour), Limit: 1, Only: 1, VariantPrices: map[int64]int64{1: 100}}}
	load := func(context.Context, []keyspace.Entry) (stock.State, error) { return state, nil }
	if err := st.Warm(context.Background(), 1, load); err != nil {
		tb.Fatalf("warm: %v", err)
	}
	return &counted{Store: st}
}

func req(user string, variant int64) stock.Request {
	return stock.Request{ItemID: 1, VariantID: variant, UserID: user, Quantity: 1, OrderID: "order-" + user,
		Now: t0.Add(time.Minute)}
}

// reserve runs r through f, failing the test on an error unless want, and
// reports whether the front door answered it itself.
func reserve(tb testing.TB, f *front.Front, r stock.Request, want error) (stock.Reservation, bool) {
	tb.Helper()
	res, err := f.Reserve(context.Background(), r)
	if (want == nil && err != nil) || (want != nil && !errors.Is(err, want)) {
		tb.Fatalf("reserve for %s: %v, want %v", r.UserID, err, want)
	}
	return res, front.Gated(err)
}

func clock() time.Time { return t0 }

func TestPassesThroughToSales(t *testing.T) {
	t.Parallel()
	sales := newSale(t, 1)
	f := front.New(sales, sales, nil, nil)
	res, gated := reserve(t, f, req("a", 0), nil)
	if gated || res.OrderID != "order-a" || res.VariantID != 1 {
		t.Fatalf("got %+v gated=%v, want order-a of variant 1 from Redis", res, gated)
	}
	// With no marks and no gate, Redis answers every purchase, sold out
	// included.
	for _, user := range []string{"b", "c"} {
		if _, gated := reserve(t, f, req(user, 1), stock.ErrSoldOut); gated {
			t.Fatalf("%s: answered by the front door with no marks or gate", user)
		}
	}
	if n := sales.calls.Load(); n != 3 {
		t.Fatalf("Redis saw %d purchases, want 3", n)
	}
}

func TestSoldOutMarkShortCircuits(t *testing.T) {
	t.Parallel()
	sales := newSale(t, 1)
	f := front.New(sales, sales, nil, front.NewMarks(time.Minute, clock))
	key := req("a", 1)
	key.IdempotencyKey = "k-a"
	reserve(t, f, key, nil)
	if !f.SoldOut(1) {
		t.Fatal("the last unit sold, but the sale is not marked sold out")
	}
	reserve(t, f, req("b", 1), stock.ErrSoldOut) // Redis's answer marks the variant
	before := sales.calls.Load()
	if _, gated := reserve(t, f, req("c", 1), stock.ErrSoldOut); !gated {
		t.Fatal("a marked variant's purchase was not answered by the front door")
	}
	// The retry of the purchase that took the last unit gets its order back.
	if res, gated := reserve(t, f, key, nil); gated || !res.Replayed {
		t.Fatalf("a replay past the mark: %+v gated=%v, want Redis's replay", res, gated)
	}
	if n := sales.calls.Load() - before; n != 1 {
		t.Fatalf("Redis saw %d purchases after the mark, want 1 (the replay)", n)
	}
	// Stock coming back lifts the marks: the next purchase asks Redis.
	f.Returned(keyspace.Return{ItemID: 1, Count: 1 << 40, Left: 1})
	if f.SoldOut(1) {
		t.Fatal("still marked sold out after stock came back")
	}
	if _, gated := reserve(t, f, req("d", 1), stock.ErrSoldOut); gated {
		t.Fatal("answered from a mark that stock coming back cleared")
	}
}

func TestPausedMark(t *testing.T) {
	t.Parallel()
	sales := newSale(t, 5)
	ctx := context.Background()
	paused := stock.Meta{StartsAt: t0, EndsAt: t0.Add(time.Hour), Limit: 1, Only: 1, Paused: true,
		VariantPrices: map[int64]int64{1: 100}}
	if err := sales.SetMeta(ctx, 1, paused); err != nil {
		t.Fatal(err)
	}
	f := front.New(sales, sales, nil, nil)
	if _, gated := reserve(t, f, req("a", 0), stock.ErrPaused); gated {
		t.Fatal("the first purchase of a paused sale must ask Redis")
	}
	before := sales.calls.Load()
	if _, gated := reserve(t, f, req("b", 0), stock.ErrPaused); !gated {
		t.Fatal("a sale Redis just called paused was asked again")
	}
	if sales.calls.Load() != before {
		t.Fatal("the paused mark let a purchase reach Redis")
	}
	// Resumed: within a moment the mark lapses and purchases go on.
	paused.Paused = false
	if err := sales.SetMeta(ctx, 1, paused); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, 2*time.Second, func() bool {
		_, err := f.Reserve(ctx, req("c", 0))
		return err == nil
	}, "the paused mark never lapsed after a resume")
}

func TestGateShedsAsBusy(t *testing.T) {
	t.Parallel()
	sales := newSale(t, 2)
	// At most 1 × the stock left of shoppers without a unit per window,
	// and no floor; the clock stands still, so the window never ends.
	f := front.New(sales, sales, front.NewGate(1, 0, time.Minute, clock), nil)
	reserve(t, f, req("a", 0), nil) // the gate now knows 1 unit is left
	// a again: admitted, and told they have bought, so a waits without a
	// unit and fills the window's room for the one unit left.
	retry := req("a", 0)
	retry.OrderID = "order-a2"
	reserve(t, f, retry, stock.ErrAlreadyPurchased)
	before := sales.calls.Load()
	if _, gated := reserve(t, f, req("b", 0), front.ErrBusy); !gated {
		t.Fatal("the gate's busy answer is not marked as the front door's")
	}
	if sales.calls.Load() != before {
		t.Fatal("a shed purchase reached Redis")
	}
	// A waiting room's admitted shopper is no stampede.
	admitted := req("b", 0)
	admitted.Admitted = true
	if _, gated := reserve(t, f, admitted, nil); gated {
		t.Fatal("an admitted shopper was shed")
	}
}
