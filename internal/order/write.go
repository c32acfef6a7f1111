package order

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"gorm.io/gorm"
)

// errStockGuard: a stock update found less stock than the locked read said.
// It can only happen if something bypassed the sale's row lock; the batch
// rolls back rather than write a negative count.
var errStockGuard = errors.New("order: stock guard refused")

// insertRows writes rows with multi-row INSERTs built here rather than by
// GORM's Create, whose reflection cost per row showed in the persisters'
// profile; updated_at takes the column's default. With skipTaken, a row
// whose order id or (sale, active shopper) is taken is skipped instead of
// failing the statement (ON DUPLICATE KEY UPDATE with no change, not
// INSERT IGNORE, which would also turn bad values and foreign key failures
// into silently dropped rows); it returns how many rows went in.
func insertRows(tx *gorm.DB, rows []row, skipTaken bool) (int64, error) {
	const cols = "(id, item_id, variant_id, user_id, quantity, status, redis_released, idempotency_key, stream_ms, stream_seq, created_at)"
	const one = "(?,?,?,?,?,?,?,?,?,?,?)"
	var in int64
	for start := 0; start < len(rows); start += 500 {
		chunk := rows[start:min(start+500, len(rows))]
		args := make([]any, 0, 11*len(chunk))
		for _, r := range chunk {
			args = append(args, r.ID, r.ItemID, r.VariantID, r.UserID, r.Quantity, r.Status, r.RedisReleased, r.IdempotencyKey,
				r.StreamMs, r.StreamSeq, r.CreatedAt)
		}
		q := "INSERT INTO orders " + cols + " VALUES " + strings.Repeat(one+",", len(chunk)-1) + one
		if skipTaken {
			// A skipped row counts 0 rows affected, an inserted one 1; that
			// needs the driver's default of counting changed rows, not found
			// ones (database.Open keeps clientFoundRows off).
			q += " ON DUPLICATE KEY UPDATE id = id"
		}
		r := tx.Exec(q, args...)
		if r.Error != nil {
			return in, fmt.Errorf("insert orders: %w", r.Error)
		}
		in += r.RowsAffected
	}
	return in, nil
}

// takeStock takes what the batch sold from each variant and from its sale,
// one statement per table.
func takeStock(tx *gorm.DB, taken map[int64]int, variants map[int64]variantStock) error {
	perItem := make(map[int64]int, 1)
	for id, qty := range taken {
		perItem[variants[id].ItemID] += qty
	}
	if err := takeFrom(tx, "variants", taken); err != nil {
		return err
	}
	return takeFrom(tx, "items", perItem)
}

// takeFrom subtracts qty[id] from the stock of each row id of table, guarded
// by stock >= qty: every row must take its share or errStockGuard is
// returned.
func takeFrom(tx *gorm.DB, table string, qty map[int64]int) error {
	if len(qty) == 0 {
		return nil
	}
	ids := slices.Sorted(maps.Keys(qty))
	amount := "CASE id" + strings.Repeat(" WHEN ? THEN ?", len(ids)) + " END"
	byID := make([]any, 0, 2*len(ids))
	for _, id := range ids {
		byID = append(byID, id, qty[id])
	}
	args := append(append(append([]any{}, byID...), ids), byID...)
	r := tx.Exec("UPDATE "+table+" SET stock = stock - "+amount+" WHERE id IN ? AND stock >= "+amount, args...)
	if r.Error != nil {
		return fmt.Errorf("take stock of %s %v: %w", table, ids, r.Error)
	}
	if r.RowsAffected != int64(len(ids)) {
		return fmt.Errorf("take stock of %s %v: %w", table, ids, errStockGuard)
	}
	return nil
}
