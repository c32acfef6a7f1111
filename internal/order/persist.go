package order

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/seckill/seckill/internal/keyspace"
)

// Rejection is a stream entry MySQL cannot accept. It only happens when Redis
// has drifted from MySQL (the item is gone, MySQL has less stock, or the
// shopper already holds another active order); the caller gives the stock back
// in Redis and records the entry.
type Rejection struct {
	Entry  keyspace.Entry
	Reason string
}

// Result says what a batch did with each entry.
type Result struct {
	Inserted  []keyspace.Entry // new rows
	Duplicate []keyspace.Entry // already persisted: a redelivery
	Rejected  []Rejection
}

// Persist writes a batch of stream entries in one transaction, with the
// matching decrement of the stock of their variants and sales. It is idempotent by order id: entries
// whose row exists are reported as Duplicate and change nothing. The item rows
// are locked first (in id order, so batches cannot deadlock), which also
// serialises two workers that were handed the same entry.
func (s *Store) Persist(ctx context.Context, entries []keyspace.Entry) (Result, error) {
	var res Result
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		res, err = persistTx(tx, entries)
		return err
	})
	if err != nil {
		return Result{}, fmt.Errorf("persist %d orders: %w", len(entries), err)
	}
	return res, nil
}

type itemStock struct {
	ID    int64
	Stock int
}

func persistTx(tx *gorm.DB, entries []keyspace.Entry) (Result, error) {
	stock, err := lockItems(tx, entries)
	if err != nil {
		return Result{}, err
	}
	variants, err := readVariantStock(tx, stock)
	if err != nil {
		return Result{}, err
	}
	entries = resolveVariants(entries, variants)
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
	if err := insertRows(tx, rows); err != nil {
		return Result{}, err
	}
	return res, takeStock(tx, taken, variants)
}

// takeStock takes what the batch sold from each variant and from its sale.
func takeStock(tx *gorm.DB, taken map[int64]int, variants map[int64]variantStock) error {
	perItem := make(map[int64]int, 1)
	for id, qty := range taken {
		perItem[variants[id].ItemID] += qty
		if err := guardedTake(tx, "variants", id, qty); err != nil {
			return err
		}
	}
	for id, qty := range perItem {
		if err := guardedTake(tx, "items", id, qty); err != nil {
			return err
		}
	}
	return nil
}

// guardedTake subtracts qty from a row's stock. The guard can only fail if
// something bypassed the sale's row lock; then the whole batch rolls back
// rather than write a negative count.
func guardedTake(tx *gorm.DB, table string, id int64, qty int) error {
	r := tx.Exec("UPDATE "+table+" SET stock = stock - ? WHERE id = ? AND stock >= ?", qty, id, qty)
	if r.Error != nil {
		return fmt.Errorf("take stock of %s %d: %w", table, id, r.Error)
	}
	if r.RowsAffected != 1 {
		return fmt.Errorf("take %d stock of %s %d: guard refused", qty, table, id)
	}
	return nil
}

type variantStock struct {
	ID, ItemID int64
	Stock      int
}

// readVariantStock reads the variants of the locked sales: their row lock
// covers their variants, whose every writer takes it first.
func readVariantStock(tx *gorm.DB, items map[int64]int) (map[int64]variantStock, error) {
	ids := make([]int64, 0, len(items))
	for id := range items {
		ids = append(ids, id)
	}
	var rows []variantStock
	if err := tx.Table("variants").Select("id, item_id, stock").Where("item_id IN ?", ids).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("read variant stock: %w", err)
	}
	out := make(map[int64]variantStock, len(rows))
	for _, r := range rows {
		out[r.ID] = r
	}
	return out, nil
}

// resolveVariants names the variant of entries queued before sales had
// variants (variant 0): their sale's only one, or none if it has several
// since (the entry is then refused). Warming applies the same rule.
func resolveVariants(entries []keyspace.Entry, variants map[int64]variantStock) []keyspace.Entry {
	only := make(map[int64]int64)
	for _, v := range variants {
		if _, seen := only[v.ItemID]; seen {
			only[v.ItemID] = 0 // several: no default
		} else {
			only[v.ItemID] = v.ID
		}
	}
	for i, e := range entries {
		if e.VariantID == 0 {
			entries[i].VariantID = only[e.ItemID]
		}
	}
	return entries
}

func lockItems(tx *gorm.DB, entries []keyspace.Entry) (map[int64]int, error) {
	ids := make([]int64, 0, 4)
	for _, e := range entries {
		ids = append(ids, e.ItemID)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var rows []itemStock
	err := tx.Table("items").Select("id, stock").Where("id IN ?", ids).Order("id").
		Clauses(clause.Locking{Strength: "UPDATE"}).Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("lock items: %w", err)
	}
	stock := make(map[int64]int, len(rows))
	for _, r := range rows {
		stock[r.ID] = r.Stock
	}
	return stock, nil
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
		Status: StatusConfirmed, RedisReleased: true, StreamMs: ms, StreamSeq: seq, CreatedAt: e.CreatedAt}
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

// insertRows writes rows with multi-row INSERTs built here rather than by
// GORM's Create, whose reflection cost per row showed in the persisters'
// profile; updated_at takes the column's default.
func insertRows(tx *gorm.DB, rows []row) error {
	const cols = "(id, item_id, variant_id, user_id, quantity, status, redis_released, idempotency_key, stream_ms, stream_seq, created_at)"
	const one = "(?,?,?,?,?,?,?,?,?,?,?)"
	for start := 0; start < len(rows); start += 500 {
		chunk := rows[start:min(start+500, len(rows))]
		args := make([]any, 0, 11*len(chunk))
		for _, r := range chunk {
			args = append(args, r.ID, r.ItemID, r.VariantID, r.UserID, r.Quantity, r.Status, r.RedisReleased, r.IdempotencyKey,
				r.StreamMs, r.StreamSeq, r.CreatedAt)
		}
		q := "INSERT INTO orders " + cols + " VALUES " + strings.Repeat(one+",", len(chunk)-1) + one
		if err := tx.Exec(q, args...).Error; err != nil {
			return fmt.Errorf("insert orders: %w", err)
		}
	}
	return nil
}
