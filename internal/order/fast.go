package order

import (
	"errors"

	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/keyspace"
)

// errRefused: the fast path met something it does not decide (a row MySQL
// refused, or a stock guard), and the batch must run on the careful path.
var errRefused = errors.New("order: fast path refused the batch")

// The fast path is for the batch every persister writes all day: new
// orders of distinct shoppers that the locked stock covers. It does not read
// which orders and active holders already exist (two lookups of every order
// in the batch, about as much work for MySQL as the insert itself); the
// insert's unique keys check the same thing, and a row they refuse makes the
// batch roll back and run on the careful path, which reads them and says
// which entries are redeliveries and which are second active orders.
// Everything else the careful path would refuse (an unknown variant, one of
// another sale, too little stock, a bad stream id, an order or shopper twice
// in the batch) is seen here before anything is written, and sends the
// batch to the careful path at once.

// planFast returns the rows of a batch the fast path can write, and the
// stock they take per variant; ok is false when it cannot.
func planFast(entries []keyspace.Entry, items map[int64]int, variants map[int64]variantStock) ([]row, map[int64]int, bool) {
	rows := make([]row, 0, len(entries))
	taken := make(map[int64]int, 1)     // per variant
	itemTaken := make(map[int64]int, 1) // per sale
	ids := make(map[string]bool, len(entries))
	holders := make(map[holderKey]bool, len(entries))
	for _, e := range entries {
		v, known := variants[e.VariantID]
		hk := holderKey{e.ItemID, e.UserID}
		if !known || v.ItemID != e.ItemID || ids[e.OrderID] || holders[hk] {
			return nil, nil, false
		}
		taken[e.VariantID] += e.Quantity
		itemTaken[e.ItemID] += e.Quantity
		if taken[e.VariantID] > v.Stock || itemTaken[e.ItemID] > items[e.ItemID] {
			return nil, nil, false
		}
		r, err := toRow(e)
		if err != nil {
			return nil, nil, false
		}
		ids[e.OrderID], holders[hk] = true, true
		rows = append(rows, r)
	}
	return rows, taken, true
}

// fastTx inserts every row, skipping those whose keys are taken, and takes
// their stock; errRefused when any row was skipped or a guard refused, so
// the transaction rolls back having changed nothing.
func fastTx(tx *gorm.DB, ins *inserts, entries []keyspace.Entry, rows []row, taken map[int64]int,
	variants map[int64]variantStock) (Result, error) {
	in, err := ins.insertRows(tx, rows, true)
	if err != nil {
		return Result{}, err
	}
	if in != int64(len(rows)) {
		return Result{}, errRefused
	}
	if err := takeStock(tx, taken, variants); err != nil {
		if errors.Is(err, errStockGuard) {
			return Result{}, errRefused
		}
		return Result{}, err
	}
	return Result{Inserted: entries}, nil
}
