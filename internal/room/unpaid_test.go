package room_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/order"
	"github.com/seckill/seckill/internal/room"
	"github.com/seckill/seckill/internal/testenv"
)

// countedOrders is the real order store, counting how often MySQL is asked
// for paid units and failing those readings on demand.
type countedOrders struct {
	*order.Store
	reads atomic.Int64
	fail  atomic.Bool
}

func (c *countedOrders) PaidUnits(ctx context.Context, itemID int64) (paid, total int64, err error) {
	c.reads.Add(1)
	if c.fail.Load() {
		return 0, 0, errors.New("mysql went away")
	}
	return c.Store.PaidUnits(ctx, itemID)
}

// unpaidSale is a sale of 5 units in a fresh database, no order paid.
func unpaidSale(tb testing.TB) (*gorm.DB, catalog.Item, *countedOrders, *room.UnpaidUnits) {
	tb.Helper()
	db := testenv.MySQL(tb)
	it, err := catalog.NewStore(db.Gorm).Create(context.Background(), catalog.Item{Name: "unpaid", StockTotal: 5,
		PerUserLimit: 1, StartsAt: t0, EndsAt: t0.Add(time.Hour)})
	if err != nil {
		tb.Fatal(err)
	}
	src := &countedOrders{Store: order.NewStore(db.Gorm)}
	return db.Gorm, it, src, room.NewUnpaidUnits(src, slog.New(slog.DiscardHandler))
}

var soldOut = room.Standing{Opened: true, StockLeft: 0}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestUnpaidUnitsReadOncePerSale: a hundred shoppers asking about a sold-out
// room at once cost one MySQL reading; a room that is open or over costs
// none; Forget and the caller's newer total are honoured.
func TestUnpaidUnitsReadOncePerSale(t *testing.T) {
	db, it, src, u := unpaidSale(t)
	var wg sync.WaitGroup
	got := make([]*int64, 100)
	for i := range got {
		wg.Go(func() { got[i] = u.Of(it.ID, 0, soldOut) })
	}
	wg.Wait()
	for i, n := range got {
		if deref(n) != int64(5) {
			t.Fatalf("caller %d: unpaid = %v, want 5 (nothing paid of 5 taken)", i, deref(n))
		}
	}
	if n := src.reads.Load(); n != 1 {
		t.Fatalf("100 callers read MySQL %d times, want 1", n)
	}
	for _, st := range []room.Standing{{Opened: true, StockLeft: 2}, {Opened: true, Ended: true}, {}} {
		if n := u.Of(it.ID, 0, st); n != nil {
			t.Errorf("Of(%+v) = %d, want nil: not sold out, or over", st, *n)
		}
	}
	if n := src.reads.Load(); n != 1 {
		t.Fatalf("rooms not sold out read MySQL: %d readings, want 1", n)
	}

	// An admin adds stock: the caller's own total wins over the reading,
	// and after Forget the reading itself has it.
	if err := db.Exec("UPDATE items SET stock_total = 7 WHERE id = ?", it.ID).Error; err != nil {
		t.Fatal(err)
	}
	if n := u.Of(it.ID, 7, soldOut); deref(n) != int64(7) {
		t.Fatalf("with the caller's total 7: unpaid = %v, want 7", deref(n))
	}
	u.Forget(it.ID)
	if n := u.Of(it.ID, 0, soldOut); deref(n) != int64(7) || src.reads.Load() < 2 {
		t.Fatalf("after Forget: unpaid = %v after %d readings, want 7 from a fresh reading", deref(n), src.reads.Load())
	}
}

// TestUnpaidUnitsUnknown: when MySQL cannot tell, the answer is unknown
// (nil, so never final), and a missing reader always is.
func TestUnpaidUnitsUnknown(t *testing.T) {
	_, it, src, u := unpaidSale(t)
	src.fail.Store(true)
	if n := u.Of(it.ID, 5, soldOut); n != nil {
		t.Fatalf("MySQL failing: unpaid = %d, want nil", *n)
	}
	src.fail.Store(false)
	u.Forget(it.ID)
	if n := u.Of(it.ID, 5, soldOut); deref(n) != int64(5) {
		t.Fatalf("MySQL back: unpaid = %v, want 5", deref(n))
	}
	var none *room.UnpaidUnits
	none.Forget(it.ID)
	for _, u := range []*room.UnpaidUnits{none, room.NewUnpaidUnits(nil, nil)} {
		if n := u.Of(it.ID, 5, soldOut); n != nil {
			t.Errorf("no reader: unpaid = %d, want nil", *n)
		}
	}
}
