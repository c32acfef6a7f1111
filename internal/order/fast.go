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
// orders of distinct shoppers that MySQL's stock covers. It reads nothing.
// Its first statement takes each sale's stock, guarded, which locks the sale
// rows in id order as lockItems does; the next takes each variant's, guarded
// also by the variant belonging to the sale the entry names; then the rows go
// in, the unique keys skipping an order or active shopper already there.
// Each of those reads replaced a round trip while the sale row is locked,
// and the lookups of every order in the batch cost MySQL about as much as
// the insert. Anything refused (too little stock, an unknown sale or
// variant, a variant of another sale, a row already there) rolls the
// attempt back and the careful path reads and decides; so does a batch the
// fast path can tell it would refuse part of before writing (an order or
// shopper twice in it, a bad stream id, an entry naming no variant).

// fastPlan is what a batch writes if MySQL accepts it all.
type fastPlan struct {
	rows    []row
	taken   map[int64]int   // per variant
	owner   map[int64]int64 // variant -> its sale, as the entries say
	perItem map[int64]int
}

// planFast returns a batch's plan; ok is false when the fast path cannot
// take the batch.
func planFast(entries []keyspace.Entry) (fastPlan, bool) {
	p := fastPlan{rows: make([]row, 0, len(entries)), taken: make(map[int64]int, 1),
		owner: make(map[int64]int64, 1), perItem: make(map[int64]int, 1)}
	ids := make(map[string]bool, len(entries))
	holders := make(map[holderKey]bool, len(entries))
	for _, e := range entries {
		hk := holderKey{e.ItemID, e.UserID}
		if owner, seen := p.owner[e.VariantID]; e.VariantID == 0 || ids[e.OrderID] || holders[hk] || (seen && owner != e.ItemID) {
			return fastPlan{}, false
		}
		r, err := toRow(e)
		if err != nil {
			return fastPlan{}, false
		}
		ids[e.OrderID], holders[hk] = true, true
		p.rows = append(p.rows, r)
		p.taken[e.VariantID] += e.Quantity
		p.owner[e.VariantID] = e.ItemID
		p.perItem[e.ItemID] += e.Quantity
	}
	return p, true
}

// fastTx writes a plan; errRefused when MySQL refused any part of it, so the
// transaction rolls back having changed nothing.
func fastTx(tx *gorm.DB, ins *inserts, entries []keyspace.Entry, p fastPlan) (Result, error) {
	for _, take := range []func() error{
		func() error { return takeFrom(tx, "items", p.perItem, nil) },
		func() error { return takeFrom(tx, "variants", p.taken, p.owner) },
	} {
		if err := take(); errors.Is(err, errStockGuard) {
			return Result{}, errRefused
		} else if err != nil {
			return Result{}, err
		}
	}
	prices, err := priceRows(tx, p.rows)
	if err != nil {
		return Result{}, err
	}
	in, err := ins.insertRows(tx, p.rows, true)
	if err != nil {
		return Result{}, err
	}
	if in != int64(len(p.rows)) {
		return Result{}, errRefused
	}
	return Result{Inserted: entries, prices: prices}, nil
}
