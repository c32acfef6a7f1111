package stocksync

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/order"
	"github.com/seckill/seckill/internal/stock"
	"github.com/seckill/seckill/internal/testenv"
)

// TestStatsSurviveCommitsBetweenReads lands purchases and persisted batches
// exactly between the stats' Redis read and MySQL read, the cases a storm
// only hits by luck, and requires the stats to still say consistent.
func TestStatsSurviveCommitsBetweenReads(t *testing.T) {
	ctx := context.Background()
	db := testenv.MySQL(t)
	rdb, prefix := testenv.Redis(t)
	keys := keyspace.New(prefix)
	st := stock.NewStore(rdb, keys)
	orders := order.NewStore(db.Gorm)
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := New(db.Gorm, st, func() time.Time { return t0 }, slog.New(slog.NewTextHandler(io.Discard, nil)))
	it, err := catalog.NewStore(db.Gorm).Create(ctx, catalog.Item{Name: "w", StockTotal: 20, PerUserLimit: 2,
		StartsAt: t0, EndsAt: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Warm(ctx, it.ID); err != nil {
		t.Fatal(err)
	}
	n := 0
	buy := func(qty int) {
		n++
		id := "01WINDOW" + string(rune('A'+n)) + "00000000000000000"
		if _, err := st.Reserve(ctx, stock.Request{ItemID: it.ID, UserID: id, Quantity: qty, OrderID: id, Now: t0}); err != nil {
			t.Fatal(err)
		}
	}
	persistAll := func() {
		msgs, err := rdb.XRange(ctx, keys.Item(it.ID).Stream(), "-", "+").Result()
		if err != nil {
			t.Fatal(err)
		}
		var entries []keyspace.Entry
		for _, m := range msgs {
			e, _ := keyspace.ParseEntry(m.ID, m.Values)
			entries = append(entries, e)
		}
		if _, err := orders.Persist(ctx, entries); err != nil {
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
			rdb.Del(ctx, keys.Item(it.ID).Stream()) // as XDEL would, after the commit
		}},
	}
	buy(1)
	buy(2)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s.betweenReads = tc.between
			defer func() { s.betweenReads = nil }()
			got, err := s.Stats(ctx, it.ID)
			if err != nil || !got.Consistent {
				t.Fatalf("stats = %+v, %v; want consistent", got, err)
			}
		})
	}
}
