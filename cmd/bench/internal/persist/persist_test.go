package persist

import (
	"context"
	"testing"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/testenv"
)

// The seeded entries must be ones the real persister accepts: a drain that
// rejected them would time a different path. Drain checks the rows
// and the stock itself; this runs it small.
func TestDrainBacklogPersistsEverySeededOrder(t *testing.T) {
	t.Parallel()
	db := testenv.MySQL(t)
	rdb, prefix := testenv.Redis(t)
	orders := Backlog(1200) // more than one batch, and a partial one
	run, err := Drain(context.Background(), rdb, db.DSN, prefix, orders, 0)
	if err != nil {
		t.Fatal(err)
	}
	if run.Rows != 1200 || run.RowsPerSec <= 0 {
		t.Errorf("run = %+v", run)
	}
	n, err := rdb.XLen(context.Background(), keyspace.New(prefix).Item(1).Stream()).Result()
	if err != nil || n != 0 {
		t.Errorf("stream length after the drain = %d, %v; want 0 (every entry acknowledged and deleted)", n, err)
	}
}

func TestSeededEntriesParseLikeReserved(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	ctx := context.Background()
	keys := keyspace.New(prefix)
	orders := Backlog(3)
	if err := seedStream(ctx, rdb, keys, 7, 70, orders); err != nil {
		t.Fatal(err)
	}
	msgs, err := rdb.XRange(ctx, keys.Item(7).Stream(), "-", "+").Result()
	if err != nil || len(msgs) != 3 {
		t.Fatalf("XRANGE = %d entries, %v", len(msgs), err)
	}
	for i, m := range msgs {
		e, err := keyspace.ParseEntry(m.ID, m.Values)
		if err != nil {
			t.Fatal(err)
		}
		if e.OrderID != orders[i].id || e.UserID != orders[i].user || e.ItemID != 7 || e.VariantID != 70 || e.Quantity != 1 ||
			e.IdempotencyKey != "" || e.CreatedAt.UnixMilli() != orders[i].ms {
			t.Errorf("entry %d = %+v, want order %+v", i, e, orders[i])
		}
	}
}

func TestPlainInsertWritesTheSameRows(t *testing.T) {
	t.Parallel()
	db := testenv.MySQL(t)
	run, err := Plain(context.Background(), db.DSN, Backlog(1100), 0)
	if err != nil {
		t.Fatal(err)
	}
	if run.Rows != 1100 {
		t.Errorf("run = %+v", run)
	}
}
