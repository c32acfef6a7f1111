package sale_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/sale"
	"github.com/seckill/seckill/internal/stock"
)

// TestRetireRefusedUntilDone walks a sale through every reason it cannot be
// retired yet (not ended, ended just now, an order still only in Redis, an
// order awaiting payment, a dead letter), then retires it: Redis forgets it, MySQL keeps it, and from
// then on no warm or change brings it back.
func TestRetireRefusedUntilDone(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ctx := context.Background()
	it := r.sale(t, 5)
	res, err := r.sales.Reserve(ctx, stock.Request{ItemID: it.ID, UserID: "ann", Quantity: 1,
		OrderID: "01RETIRE0000000000000000AN", Now: r.now()})
	if err != nil {
		t.Fatal(err)
	}
	refused := func(want string) {
		t.Helper()
		_, err := r.sales.Retire(ctx, it.ID)
		var nr *sale.NotRetirableError
		if !errors.As(err, &nr) || nr.Reason != want || !errors.Is(err, sale.ErrNotRetirable) {
			t.Fatalf("retire: %v, want not retirable because %q", err, want)
		}
	}
	refused(sale.NotEnded)
	r.clock.Store(it.EndsAt.UnixMilli()) // ends_at itself is ended, but purchases may be on their way
	refused(sale.JustEnded)
	r.clock.Add(sale.RetireGrace.Milliseconds())
	refused(sale.StillPersisting) // ann's order is only in the stream

	r.persistPending(t, it.ID)
	refused(sale.AwaitingPayment) // persisted, confirmed, not paid

	r.pay(t, res.OrderID, "ann")
	// An order MySQL refused waits for a person; once handled, the sale goes.
	dead := r.keys.Item(it.ID).DeadLetters()
	if err := r.rdb.XAdd(ctx, &redis.XAddArgs{Stream: dead, Values: map[string]any{"id": "01DEAD", "reason": "refused"}}).Err(); err != nil {
		t.Fatal(err)
	}
	refused(sale.DeadLetters)
	if err := r.rdb.Del(ctx, dead).Err(); err != nil {
		t.Fatal(err)
	}
	retired, err := r.sales.Retire(ctx, it.ID)
	if err != nil || retired.RetiredAt == nil || !retired.RetiredAt.Equal(r.now()) {
		t.Fatalf("retire a done sale: %+v, %v; want retired at %v", retired.RetiredAt, err, r.now())
	}
	r.checkRetired(t, it.ID, *retired.RetiredAt)

	r.clock.Add(time.Hour.Milliseconds())
	again, err := r.sales.Retire(ctx, it.ID)
	if err != nil || !again.RetiredAt.Equal(*retired.RetiredAt) {
		t.Fatalf("retire again: %v, %v; want the first answer, retired at %v", again.RetiredAt, err, *retired.RetiredAt)
	}
	if err := r.sync.Warm(ctx, it.ID); !errors.Is(err, catalog.ErrRetired) {
		t.Fatalf("warm a retired sale: %v, want catalog.ErrRetired", err)
	}
	name := "renamed"
	if _, err := r.sales.Update(ctx, it.ID, catalog.Patch{Name: &name}); !errors.Is(err, catalog.ErrRetired) {
		t.Fatalf("update a retired sale: %v, want catalog.ErrRetired", err)
	}
	_, err = r.sales.Reserve(ctx, stock.Request{ItemID: it.ID, UserID: "bob", Quantity: 1,
		OrderID: "01RETIRE0000000000000000BO", Now: r.now()})
	if !errors.Is(err, stock.ErrEnded) {
		t.Fatalf("buy from a retired sale: %v, want stock.ErrEnded as for any ended sale", err)
	}
	r.checkRetired(t, it.ID, *retired.RetiredAt) // and none of that left a key behind

	// A retirement cut off between MySQL and the purge leaves keys of a
	// retired sale in the registry: the retirer's next run removes them.
	k := r.keys.Item(it.ID)
	if err := r.rdb.SAdd(ctx, r.keys.Registry(), it.ID).Err(); err != nil {
		t.Fatal(err)
	}
	if err := r.rdb.Set(ctx, k.Stock(), 4, 0).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.sales.RetireDue(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := r.rdb.Exists(ctx, k.Stock()).Result(); err != nil || n != 0 {
		t.Fatalf("a retired sale's leftover key after the retirer ran: %d, %v", n, err)
	}
	r.checkRetired(t, it.ID, *retired.RetiredAt)
}

// checkRetired checks that MySQL records the sale retired with its order
// and that Redis holds nothing of it.
func (r *rig) checkRetired(t *testing.T, id int64, at time.Time) {
	t.Helper()
	ctx := context.Background()
	it, err := r.items.Get(ctx, id)
	if err != nil || it.RetiredAt == nil || !it.RetiredAt.Equal(at) || it.Stock != 4 {
		t.Fatalf("sale in MySQL: %+v, %v; want retired at %v with 4 of 5 left", it, err, at)
	}
	if levels, err := r.stock.Levels(ctx, []int64{id}); err != nil || len(levels) != 0 {
		t.Fatalf("redis stock of the retired sale: %v, %v; want none", levels, err)
	}
	if warm, err := r.stock.WarmItems(ctx); err != nil || slices.Contains(warm, id) {
		t.Fatalf("registry %v, %v: still holds the retired sale", warm, err)
	}
	if q, err := r.stock.Queue(ctx, id); err != nil || len(q.Entries) != 0 || q.Pending != 0 {
		t.Fatalf("stream of the retired sale: %+v, %v; want gone", q, err)
	}
}

// TestRetireClosesRedisFirst: the purchase script checks Redis's end
// against the purchasing server's clock, which may lag by more than the
// grace. Retire closes
// the sale in Redis before it reads the queue: from then on a lagging server
// is refused as ended, so no order lands after the read to be purged; an
// order taken before the close holds the retirement until it is in MySQL.
func TestRetireClosesRedisFirst(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ctx := context.Background()
	it := r.sale(t, 5)
	r.clock.Add(10 * time.Minute.Milliseconds())
	ended := r.now().Add(-2 * sale.RetireGrace)
	// The sale ended two graces ago, in MySQL and in Redis.
	if _, err := r.items.Update(ctx, it.ID, catalog.Patch{EndsAt: &ended}, nil); err != nil {
		t.Fatal(err)
	}
	if err := r.rdb.HSet(ctx, r.keys.Item(it.ID).Meta(), "ends_ms", ended.UnixMilli()).Err(); err != nil {
		t.Fatal(err)
	}
	lagging := ended.Add(-sale.RetireGrace - time.Second) // a server's clock, more than the grace behind
	buy := func(user, orderID string) error {
		_, err := r.sales.Reserve(ctx, stock.Request{ItemID: it.ID, UserID: user, Quantity: 1, OrderID: orderID, Now: lagging})
		return err
	}
	if err := buy("ann", "01RETIRE0000000000000LAGAN"); err != nil {
		t.Fatalf("the lagging server before the close: %v", err)
	}
	_, err := r.sales.Retire(ctx, it.ID)
	var nr *sale.NotRetirableError
	if !errors.As(err, &nr) || nr.Reason != sale.StillPersisting {
		t.Fatalf("retire with ann's order only in Redis: %v, want %q", err, sale.StillPersisting)
	}
	if err := buy("bob", "01RETIRE0000000000000LAGBO"); !errors.Is(err, stock.ErrEnded) {
		t.Fatalf("the lagging server after the close: %v, want stock.ErrEnded", err)
	}
	r.persistPending(t, it.ID)
	r.pay(t, "01RETIRE0000000000000LAGAN", "ann")
	retired, err := r.sales.Retire(ctx, it.ID)
	if err != nil || retired.RetiredAt == nil {
		t.Fatalf("retire once ann's order is in MySQL: %+v, %v", retired.RetiredAt, err)
	}
	r.checkRetired(t, it.ID, *retired.RetiredAt)
	if o, err := r.orders.Get(ctx, "01RETIRE0000000000000LAGAN"); err != nil || o.UserID != "ann" {
		t.Fatalf("ann's order after the retirement: %+v, %v", o, err)
	}
}
