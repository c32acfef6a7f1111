package order

import (
	"database/sql"
	"strconv"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/testenv"
)

// A statement that cannot be prepared must not stop persisting: the rows go
// in as text.
func TestInsertRowsWithoutPreparedStatements(t *testing.T) {
	t.Parallel()
	db := testenv.MySQL(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(db.Gorm.Exec(`INSERT INTO items (id, name, description, price_cents, stock_total, stock, starts_at, ends_at)
		VALUES (1, 'x', '', 1, 100, 100, '2026-01-01', '2026-01-02')`).Error)
	must(db.Gorm.Exec("INSERT INTO variants (id, item_id, position, label, stock_total, stock) VALUES (1, 1, 0, 'D', 100, 100)").Error)
	closed, err := sql.Open("mysql", db.DSN)
	must(err)
	must(closed.Close())
	var rows []row
	for i := range 60 {
		rows = append(rows, row{ID: "R" + strconv.Itoa(i), ItemID: 1, VariantID: 1, UserID: "u" + strconv.Itoa(i), Quantity: 1,
			Status: StatusConfirmed, RedisReleased: true, StreamSeq: uint64(i), CreatedAt: time.Now()})
	}
	// Text first, then prepared: the second time every row is taken.
	for _, tt := range []struct {
		ins  *inserts
		want int64
	}{{&inserts{db: closed}, 60}, {newInserts(db.Gorm), 0}} {
		var in int64
		must(db.Gorm.Transaction(func(tx *gorm.DB) error {
			var err error
			in, err = tt.ins.insertRows(tx, rows, true)
			return err
		}))
		var n int64
		must(db.Gorm.Raw("SELECT COUNT(*) FROM orders").Scan(&n).Error)
		if in != tt.want || n != 60 {
			t.Errorf("inserted %d rows, %d in all; want %d and 60", in, n, tt.want)
		}
	}
}
