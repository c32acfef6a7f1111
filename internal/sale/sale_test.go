package sale_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/order"
	"github.com/seckill/seckill/internal/sale"
	"github.com/seckill/seckill/internal/stock"
	"github.com/seckill/seckill/internal/sync/lock"
	"github.com/seckill/seckill/internal/sync/stocksync"
	"github.com/seckill/seckill/internal/testenv"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// rig is the sale service on real MySQL and Redis, with a clock the test
// moves.
type rig struct {
	sales  *sale.Service
	items  *catalog.Store
	orders *order.Store
	stock  *stock.Store
	sync   *stocksync.Syncer
	rdb    *redis.Client
	keys   keyspace.Space
	clock  atomic.Int64 // unix ms
	seq    atomic.Int64
}

func newRig(t *testing.T) *rig {
	t.Helper()
	db := testenv.MySQL(t)
	rdb, prefix := testenv.Redis(t)
	r := &rig{items: catalog.NewStore(db.Gorm), orders: order.NewStore(db.Gorm), rdb: rdb, keys: keyspace.New(prefix)}
	r.clock.Store(t0.UnixMilli())
	r.stock = stock.NewStore(rdb, keyspace.New(prefix))
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	r.sync = stocksync.New(db.Gorm, r.stock, lock.New(rdb, prefix), r.now, log)
	r.sales = sale.New(db.Gorm, r.stock, r.sync, r.now, log)
	return r
}

func (r *rig) now() time.Time { return time.UnixMilli(r.clock.Load()).UTC() }

func (r *rig) sale(t *testing.T, total int) catalog.Item {
	t.Helper()
	it, err := r.sales.Create(context.Background(), catalog.Item{Name: "s", StockTotal: total, PerUserLimit: 1,
		StartsAt: t0, EndsAt: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	return it
}

// buy reserves one unit for user and persists it at once, as a worker would.
func (r *rig) buy(t *testing.T, itemID int64, user string) string {
	t.Helper()
	ctx := context.Background()
	id := "01SALE" + strconv.FormatInt(1_000_000_000_000+r.seq.Add(1), 10)[1:] + "00000000"
	res, err := r.sales.Reserve(ctx, stock.Request{ItemID: itemID, UserID: user, Quantity: 1, OrderID: id, Now: r.now()})
	if err != nil {
		t.Fatalf("%s buys: %v", user, err)
	}
	r.persistPending(t, itemID)
	return res.OrderID
}

// persistPending writes what the sale has pending in Redis to MySQL, as a
// worker would.
func (r *rig) persistPending(t *testing.T, itemID int64) {
	t.Helper()
	ctx := context.Background()
	snap, err := r.stock.Snapshot(ctx, itemID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.orders.Persist(ctx, snap.Pending); err != nil {
		t.Fatal(err)
	}
}

// pay pays orderID as user.
func (r *rig) pay(t *testing.T, orderID, user string) {
	t.Helper()
	if _, err := r.sales.Pay(context.Background(), orderID, user); err != nil {
		t.Fatal(err)
	}
}

// stockLeft is the sale's available stock in MySQL and in Redis.
func (r *rig) stockLeft(t *testing.T, itemID int64) (mysql int, redis int64) {
	t.Helper()
	it, err := r.items.Get(context.Background(), itemID)
	if err != nil {
		t.Fatal(err)
	}
	levels, err := r.stock.Levels(context.Background(), []int64{itemID})
	if err != nil {
		t.Fatal(err)
	}
	return it.Stock, levels[itemID].Total
}

// TestCancelGivesStockBackInBothStores: a shopper's cancel returns the unit
// in MySQL and Redis, and the shopper may buy again; a paid order cannot be
// cancelled and keeps its unit.
func TestCancelGivesStockBackInBothStores(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	it := r.sale(t, 2)
	ctx := context.Background()
	alice, bob := r.buy(t, it.ID, "alice"), r.buy(t, it.ID, "bob")
	r.pay(t, bob, "bob")
	if _, err := r.sales.Cancel(ctx, alice, "mallory", order.ReasonShopper); !errors.Is(err, order.ErrNotFound) {
		t.Fatalf("another shopper cancelling alice's order: %v, want order.ErrNotFound", err)
	}
	o, err := r.sales.Cancel(ctx, alice, "alice", order.ReasonShopper)
	if err != nil || o.Status != order.StatusCancelled {
		t.Fatalf("alice cancels: %+v, %v", o, err)
	}
	if m, rd := r.stockLeft(t, it.ID); m != 1 || rd != 1 {
		t.Fatalf("after the cancel: mysql stock %d, redis stock %d; want 1 and 1", m, rd)
	}
	if _, err := r.sales.Cancel(ctx, bob, "bob", order.ReasonShopper); !errors.Is(err, order.ErrPaid) {
		t.Fatalf("cancelling a paid order: %v, want order.ErrPaid", err)
	}
	r.buy(t, it.ID, "alice") // her cancel forgot her as a buyer
	if m, rd := r.stockLeft(t, it.ID); m != 0 || rd != 0 {
		t.Fatalf("after alice bought again: mysql stock %d, redis stock %d; want 0 and 0", m, rd)
	}
}

// TestSweepCancelsOnlyOverdueUnpaidOrders moves the clock past the payment
// timeout of one order but not of another.
func TestSweepCancelsOnlyOverdueUnpaidOrders(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	it := r.sale(t, 5)
	ctx := context.Background()
	late, paid := r.buy(t, it.ID, "late"), r.buy(t, it.ID, "payer")
	r.pay(t, paid, "payer")
	r.clock.Add((10 * time.Minute).Milliseconds())
	fresh := r.buy(t, it.ID, "fresh")
	r.clock.Add((5 * time.Minute).Milliseconds()) // late: 15 min old; fresh: 5 min
	if err := r.sales.Sweep(ctx, 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{late: order.StatusCancelled, paid: order.StatusPaid, fresh: order.StatusConfirmed}
	for id, status := range want {
		if o, err := r.orders.Get(ctx, id); err != nil || o.Status != status {
			t.Errorf("order %s: %+v, %v; want %s", id, o, err, status)
		}
	}
	if m, rd := r.stockLeft(t, it.ID); m != 3 || rd != 3 {
		t.Fatalf("after the sweep: mysql stock %d, redis stock %d; want 3 and 3", m, rd)
	}
}

// TestReserveWarmsASaleRedisDoesNotKnow: a sale created behind this
// server's back (another server, or Redis lost it) sells on its first
// purchase; a made-up sale is not found.
func TestReserveWarmsASaleRedisDoesNotKnow(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ctx := context.Background()
	it, err := r.items.Create(ctx, catalog.Item{Name: "cold", StockTotal: 3, PerUserLimit: 1, StartsAt: t0, EndsAt: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	r.buy(t, it.ID, "first")
	if _, rd := r.stockLeft(t, it.ID); rd != 2 {
		t.Fatalf("redis stock %d after the first purchase warmed the sale, want 2", rd)
	}
	_, err = r.sales.Reserve(ctx, stock.Request{ItemID: it.ID + 1000, UserID: "u", Quantity: 1, OrderID: "01NOSUCHSALE00000000000000", Now: r.now()})
	if !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("buying a made-up sale: %v, want catalog.ErrNotFound", err)
	}
}

// TestUpdateMovesStockInBothStores: an admin adding and removing units moves
// available stock by the same amount in MySQL and Redis, and cannot take
// back units already sold.
func TestUpdateMovesStockInBothStores(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	it := r.sale(t, 3)
	ctx := context.Background()
	r.buy(t, it.ID, "a")
	r.buy(t, it.ID, "b")
	total := 10
	if _, err := r.sales.Update(ctx, it.ID, catalog.Patch{StockTotal: &total}); err != nil {
		t.Fatal(err)
	}
	if m, rd := r.stockLeft(t, it.ID); m != 8 || rd != 8 {
		t.Fatalf("after stock_total 3 -> 10: mysql stock %d, redis stock %d; want 8 and 8", m, rd)
	}
	total = 1
	_, err := r.sales.Update(ctx, it.ID, catalog.Patch{StockTotal: &total})
	if !errors.Is(err, stock.ErrStockConflict) && !errors.Is(err, catalog.ErrStockConflict) {
		t.Fatalf("stock_total below the 2 sold: %v, want a stock conflict", err)
	}
	if m, rd := r.stockLeft(t, it.ID); m != 8 || rd != 8 {
		t.Fatalf("after a refused change: mysql stock %d, redis stock %d; want 8 and 8", m, rd)
	}
}
