package order

import (
	"fmt"
	"slices"

	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/keyspace"
)

// carefulTx decides each entry's fate from what MySQL holds: which orders
// exist already and which shoppers hold an active one. It runs when the
// fast path cannot (a batch it would refuse part of) or did not (MySQL
// refused some of its rows), so it is the one that reports Duplicate and
// Rejected entries.
func carefulTx(tx *gorm.DB, ins *inserts, entries []keyspace.Entry, stock map[int64]int,
	variants map[int64]variantStock) (Result, error) {
	existing, err := NewStore(tx).Existing(tx.Statement.Context, orderIDs(entries))
	if err != nil {
		return Result{}, err
	}
	holders, err := activeHolders(tx, entries)
	if err != nil {
		return Result{}, err
	}
	res, rows, taken := classify(entries, stock, variants, existing, holders)
	if len(rows) == 0 {
		return res, nil
	}
	if res.prices, err = priceRows(tx, rows); err != nil {
		return Result{}, err
	}
	if _, err := ins.insertRows(tx, rows, false); err != nil {
		return Result{}, err
	}
	return res, takeStock(tx, taken, variants)
}

type holderKey struct {
	item int64
	user string
}

// activeHolders returns the (item, user) pairs among entries that already
// hold an active order, mapped to that order's id.
func activeHolders(tx *gorm.DB, entries []keyspace.Entry) (map[holderKey]string, error) {
	items, users := make([]int64, 0, 4), make([]string, 0, len(entries))
	for _, e := range entries {
		items, users = append(items, e.ItemID), append(users, e.UserID)
	}
	slices.Sort(items)
	items = slices.Compact(items)
	var rows []struct {
		ID     string
		ItemID int64
		UserID string
	}
	err := tx.Table("orders").Select("id, item_id, user_id").
		Where("item_id IN ? AND active_user_id IN ?", items, users).Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("find active orders: %w", err)
	}
	out := make(map[holderKey]string, len(rows))
	for _, r := range rows {
		out[holderKey{r.ItemID, r.UserID}] = r.ID
	}
	return out, nil
}

// classify decides each entry's fate and returns the rows to insert and the
// stock they take per item.
func classify(entries []keyspace.Entry, items map[int64]int, variants map[int64]variantStock, existing map[string]bool,
	holders map[holderKey]string) (Result, []row, map[int64]int) {
	var res Result
	var rows []row
	taken := make(map[int64]int)     // per variant
	itemTaken := make(map[int64]int) // per sale
	for _, e := range entries {
		hk := holderKey{e.ItemID, e.UserID}
		v, known := variants[e.VariantID]
		left := v.Stock
		switch {
		case existing[e.OrderID]:
			res.Duplicate = append(res.Duplicate, e)
			continue
		case !known || v.ItemID != e.ItemID:
			res.Rejected = append(res.Rejected, Rejection{e, "item or variant does not exist in MySQL"})
			continue
		case holders[hk] != "":
			res.Rejected = append(res.Rejected, Rejection{e, "shopper already holds order " + holders[hk]})
			continue
		case left-taken[e.VariantID] < e.Quantity || items[e.ItemID]-itemTaken[e.ItemID] < e.Quantity:
			res.Rejected = append(res.Rejected, Rejection{e, "MySQL has not enough stock"})
			continue
		}
		r, err := toRow(e)
		if err != nil {
			res.Rejected = append(res.Rejected, Rejection{e, err.Error()})
			continue
		}
		existing[e.OrderID], holders[hk] = true, e.OrderID // later duplicates in this batch
		taken[e.VariantID] += e.Quantity
		itemTaken[e.ItemID] += e.Quantity
		rows = append(rows, r)
		res.Inserted = append(res.Inserted, e)
	}
	return res, rows, taken
}

func toRow(e keyspace.Entry) (row, error) {
	ms, seq, err := keyspace.StreamPos(e.StreamID)
	if err != nil {
		return row{}, err
	}
	r := row{ID: e.OrderID, ItemID: e.ItemID, VariantID: e.VariantID, UserID: e.UserID, Quantity: e.Quantity,
		UnitPriceCents: e.UnitPriceCents, Status: StatusConfirmed, RedisReleased: true, StreamMs: ms, StreamSeq: seq,
		CreatedAt: e.CreatedAt}
	if e.IdempotencyKey != "" {
		key := e.IdempotencyKey
		r.IdempotencyKey = &key
	}
	return r, nil
}

func orderIDs(entries []keyspace.Entry) []string {
	ids := make([]string, len(entries))
	for i, e := range entries {
		ids[i] = e.OrderID
	}
	return ids
}
