package stocksync

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/order"
	"github.com/seckill/seckill/internal/stock"
	"github.com/seckill/seckill/internal/sync/lock"
	"github.com/seckill/seckill/internal/testenv"
)

type rig struct {
	s      *Syncer
	rdb    *redis.Client
	st     *stock.Store
	orders *order.Store
	item   catalog.Item
	keys   keyspace.Space
	t0     time.Time
}

func newRig(t *testing.T, total, limit int) rig {
	t.Helper()
	ctx := context.Background()
	db := testenv.MySQL(t)
	rdb, prefix := testenv.Redis(t)
	keys := keyspace.New(prefix)
	st := stock.NewStore(rdb, keys)
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := New(db.Gorm, st, lock.New(rdb, prefix), func() time.Time { return t0 }, slog.New(slog.NewTextHandler(io.Discard, nil)))
	it, err := catalog.NewStore(db.Gorm).Create(ctx, catalog.Item{Name: "r", StockTotal: total, PerUserLimit: limit,
		StartsAt: t0, EndsAt: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Warm(ctx, it.ID); err != nil {
		t.Fatal(err)
	}
	return rig{s: s, rdb: rdb, st: st, orders: order.NewStore(db.Gorm), item: it, keys: keys, t0: t0}
}

// buyAndPersist reserves one unit for user and writes it to MySQL at once.
func (r rig) buyAndPersist(t *testing.T, user string) string {
	t.Helper()
	ctx := context.Background()
	res, err := r.st.Reserve(ctx, stock.Request{ItemID: r.item.ID, UserID: user, Quantity: 1, OrderID: "01RACE" + user + "00000000000000000000"[:20-len(user)], Now: r.t0})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := r.st.Snapshot(ctx, r.item.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.orders.Persist(ctx, snap.Pending); err != nil {
		t.Fatal(err)
	}
	return res.OrderID
}

func (r rig) consistent(t *testing.T) {
	t.Helper()
	st, err := r.s.Stats(context.Background(), r.item.ID)
	if err != nil || !st.Consistent {
		t.Fatalf("stats = %+v, %v: want consistent", st, err)
	}
}

// TestCancelBetweenStatsReads: an order reserved, persisted and cancelled in
// MySQL between the stats' Redis read and MySQL read is in neither side of
// the Redis snapshot, so it must not count as owed; a correction then must
// change nothing, and the release settles it.
func TestCancelBetweenStatsReads(t *testing.T) {
	t.Parallel()
	r := newRig(t, 10, 1)
	ctx := context.Background()
	var cancelled order.Order
	r.s.betweenReads = func() {
		r.s.betweenReads = nil
		id := r.buyAndPersist(t, "late")
		var err error
		if cancelled, err = r.orders.CancelInMySQL(ctx, id, "late", order.ReasonShopper); err != nil {
			t.Error(err)
		}
	}
	st, err := r.s.Stats(ctx, r.item.ID)
	if err != nil || !st.Consistent {
		t.Fatalf("stats across the cancel = %+v, %v: want consistent", st, err)
	}
	if _, err := r.s.FinishReleases(ctx, 10); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.st.Levels(ctx, []int64{r.item.ID}); got[r.item.ID].Total != 10 {
		t.Fatalf("redis stock %d after the cancel of %s settled, want 10", got[r.item.ID].Total, cancelled.ID)
	}
	r.consistent(t)
}

// TestStatsSurviveCommitsBetweenReads lands purchases and persisted batches
// exactly between the stats' Redis read and MySQL read, the cases a storm
// only hits by luck, and requires the stats to still say consistent.
func TestStatsSurviveCommitsBetweenReads(t *testing.T) {
	t.Parallel()
	r := newRig(t, 20, 2)
	ctx := context.Background()
	n := 0
	buy := func(qty int) {
		n++
		id := "01WINDOW" + string(rune('A'+n)) + "00000000000000000"
		if _, err := r.st.Reserve(ctx, stock.Request{ItemID: r.item.ID, UserID: id, Quantity: qty, OrderID: id, Now: r.t0}); err != nil {
			t.Fatal(err)
		}
	}
	persistAll := func() {
		snap, err := r.st.Snapshot(ctx, r.item.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.orders.Persist(ctx, snap.Pending); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		between func()
	}{
		{"a purchase lands", func() { buy(1) }},
		{"a purchase lands and is persisted", func() { buy(2); persistAll() }},
		{"pending orders are persisted", persistAll},
		{"persisted orders are acknowledged and deleted", func() {
			r.rdb.Del(ctx, r.keys.Item(r.item.ID).Stream()) // as XDEL would, after the commit
		}},
	}
	buy(1)
	buy(2)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r.s.betweenReads = tc.between
			defer func() { r.s.betweenReads = nil }()
			r.consistent(t)
		})
	}
}
