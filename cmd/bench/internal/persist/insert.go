package persist

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/database"
)

// InsertRows is the rows per INSERT of the baseline, as FACTS.md measured.
const InsertRows = 500

// Plain is the persistence baseline: the same rows into the same
// orders table with nothing but multi-row INSERTs, one statement prepared
// once, each statement its own commit (as each persister batch is). The
// CPU of the MariaDB server mysqlPID (0: none) is metered as Drain does.
func Plain(ctx context.Context, dsn string, orders []Order, mysqlPID int) (Run, error) {
	db, item, err := openBacklog(ctx, dsn, len(orders), "baseline")
	if err != nil {
		return Run{}, err
	}
	defer closeGorm(db)
	sqlDB, err := db.DB()
	if err != nil {
		return Run{}, err
	}
	win := startWindow(mysqlPID)
	if err := insertOrders(ctx, sqlDB, item.ID, item.Variants[0].ID, orders); err != nil {
		return Run{}, err
	}
	run := win.end(len(orders))
	if err := checkRows(ctx, db, item.ID, len(orders), len(orders)); err != nil {
		return Run{}, err
	}
	return run, nil
}

const orderColumns = "(id, item_id, variant_id, user_id, quantity, status, redis_released, stream_ms, stream_seq, created_at)"

func insertOrders(ctx context.Context, db *sql.DB, item, variant int64, orders []Order) error {
	full, err := db.PrepareContext(ctx, insertSQL(InsertRows))
	if err != nil {
		return fmt.Errorf("prepare insert: %w", err)
	}
	defer full.Close()
	args := make([]any, 0, 10*InsertRows)
	for start := 0; start < len(orders); start += InsertRows {
		chunk := orders[start:min(start+InsertRows, len(orders))]
		args = args[:0]
		for i, o := range chunk {
			args = append(args, o.id, item, variant, o.user, 1, "confirmed", true, o.ms, start+i,
				time.UnixMilli(o.ms).UTC())
		}
		if len(chunk) == InsertRows {
			_, err = full.ExecContext(ctx, args...)
		} else {
			_, err = db.ExecContext(ctx, insertSQL(len(chunk)), args...)
		}
		if err != nil {
			return fmt.Errorf("insert orders: %w", err)
		}
	}
	return nil
}

func insertSQL(rows int) string {
	row := "(?,?,?,?,?,?,?,?,?,?)"
	return "INSERT INTO orders " + orderColumns + " VALUES " + strings.Repeat(row+",", rows-1) + row
}

// openBacklog migrates the (new) database in dsn, opens it and creates the
// sale of stock units the run's orders are for; what names the run in an
// error ("baseline", "backlog").
func openBacklog(ctx context.Context, dsn string, stock int, what string) (*gorm.DB, catalog.Item, error) {
	if err := database.Migrate(ctx, dsn); err != nil {
		return nil, catalog.Item{}, err
	}
	db, err := database.Open(ctx, dsn)
	if err != nil {
		return nil, catalog.Item{}, err
	}
	item, err := catalog.NewStore(db).Create(ctx, backlogItem(stock))
	if err != nil {
		closeGorm(db)
		return nil, catalog.Item{}, fmt.Errorf("create %s sale: %w", what, err)
	}
	return db, item, nil
}

func closeGorm(db *gorm.DB) {
	if sqlDB, err := db.DB(); err == nil {
		sqlDB.Close()
	}
}

// checkRows confirms the run really wrote want orders for item and left
// items.stock at stockLeft (the persister takes stock, the baseline not).
func checkRows(ctx context.Context, db *gorm.DB, item int64, want, stockLeft int) error {
	var rows, stock int64
	if err := db.WithContext(ctx).Raw("SELECT COUNT(*) FROM orders WHERE item_id = ?", item).Scan(&rows).Error; err != nil {
		return fmt.Errorf("count orders: %w", err)
	}
	if err := db.WithContext(ctx).Raw("SELECT stock FROM items WHERE id = ?", item).Scan(&stock).Error; err != nil {
		return fmt.Errorf("read stock: %w", err)
	}
	if rows != int64(want) || stock != int64(stockLeft) {
		return fmt.Errorf("after the run: %d orders and stock %d, want %d and %d", rows, stock, want, stockLeft)
	}
	return nil
}
