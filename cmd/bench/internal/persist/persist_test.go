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

// The drain with events must time the persisters writing every event: a
// store left without its outbox would time the plain drain again. The
// check it makes after the drain must refuse an outbox short of a row.
func TestDrainWithEventsWritesAnEventPerOrder(t *testing.T) {
	t.Parallel()
	db := testenv.MySQL(t)
	rdb, prefix := testenv.Redis(t)
	ctx := context.Background()
	run, err := DrainWithEvents(ctx, rdb, db.DSN, prefix, Backlog(1200), 0)
	if err != nil {
		t.Fatal(err)
	}
	if run.Rows != 1200 || run.Events != 1201 {
		t.Errorf("run = %+v, want 1,200 rows and 1,201 outbox rows (one order.confirmed each, one sale.sold_out)", run)
	}
	var confirmed int
	if err := db.Gorm.Raw("SELECT COUNT(DISTINCT o.id) FROM outbox x JOIN orders o ON x.subject = CONCAT('order:', o.id) "+
		"WHERE x.type = 'order.confirmed' AND x.endpoint = ?", EventEndpoint).Scan(&confirmed).Error; err != nil || confirmed != 1200 {
		t.Errorf("orders with an order.confirmed row = %d, %v; want 1,200", confirmed, err)
	}
	if err := db.Gorm.Exec("DELETE FROM outbox WHERE type = 'order.confirmed' LIMIT 1").Error; err != nil {
		t.Fatal(err)
	}
	if _, err := checkEvents(ctx, db.Gorm, 1200); err == nil {
		t.Error("checkEvents accepted an outbox one order.confirmed row short")
	}
}

func TestPlainDrainWritesNoEvents(t *testing.T) {
	t.Parallel()
	db := testenv.MySQL(t)
	rdb, prefix := testenv.Redis(t)
	run, err := Drain(context.Background(), rdb, db.DSN, prefix, Backlog(600), 0)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.Gorm.Raw("SELECT COUNT(*) FROM outbox").Scan(&n).Error; err != nil || n != 0 || run.Events != 0 {
		t.Errorf("outbox rows after the drain without events = %d (run says %d), %v; want 0", n, run.Events, err)
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
