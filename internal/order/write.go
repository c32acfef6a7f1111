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
