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

// takeStock takes what the batch sold from each variant and from its sale,
// one statement per table.
func takeStock(tx *gorm.DB, taken map[int64]int, variants map[int64]variantStock) error {
	perItem := make(map[int64]int, 1)
	for id, qty := range taken {
		perItem[variants[id].ItemID] += qty
	}
	if err := takeFrom(tx, "variants", taken, nil); err != nil {
		return err
	}
	return takeFrom(tx, "items", perItem, nil)
}

// takeFrom subtracts qty[id] from the stock of each row id of table, guarded
// by stock >= qty and, with owner, by the row's item_id being owner[id]:
// every row must take its share or errStockGuard is returned. Rows are
// locked in id order, as lockItems locks them.
func takeFrom(tx *gorm.DB, table string, qty map[int64]int, owner map[int64]int64) error {
	if len(qty) == 0 {
		return nil
	}
	ids := slices.Sorted(maps.Keys(qty))
	amount, byID := caseOf(ids, qty)
	q := "UPDATE " + table + " SET stock = stock - " + amount + " WHERE id IN ? AND stock >= " + amount
	args := append(append(append([]any{}, byID...), ids), byID...)
	if owner != nil {
		item, byOwner := caseOf(ids, owner)
		q += " AND item_id = " + item
		args = append(args, byOwner...)
	}
	r := tx.Exec(q, args...)
	if r.Error != nil {
		return fmt.Errorf("take stock of %s %v: %w", table, ids, r.Error)
	}
	if r.RowsAffected != int64(len(ids)) {
		return fmt.Errorf("take stock of %s %v: %w", table, ids, errStockGuard)
	}
	return nil
}

// caseOf is "CASE id WHEN ? THEN ? ... END" mapping each of ids to its
// value in m, and its arguments.
func caseOf[V int | int64](ids []int64, m map[int64]V) (string, []any) {
	args := make([]any, 0, 2*len(ids))
	for _, id := range ids {
		args = append(args, id, m[id])
	}
	return "CASE id" + strings.Repeat(" WHEN ? THEN ?", len(ids)) + " END", args
}
