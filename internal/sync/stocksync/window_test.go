package stocksync

import (
	"context"
	"testing"

	"github.com/seckill/seckill/internal/stock"
)

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
