package order

import (
	"context"
	"errors"
	"fmt"
	"slices"

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
	prices    map[int64]pricing // of the inserted orders' variants
}

// Persist writes a batch of stream entries in one transaction, with the
// matching decrement of the stock of their variants and sales. It is
// idempotent by order id: entries whose row exists are reported as Duplicate
// and change nothing. The item rows are locked first (in id order, so
// batches cannot deadlock), which also serialises two workers that were
// handed the same entry.
//
// A batch is first tried on the fast path (fast.go), which reads nothing:
// its guarded stock updates take the same locks, and the insert's unique
// keys find redeliveries. When MySQL refuses anything the whole attempt
// rolls back and the batch runs again on the careful path, which decides
// each entry's fate from what it reads.
func (s *Store) Persist(ctx context.Context, entries []keyspace.Entry) (Result, error) {
	res, err := s.persist(ctx, entries, true)
	if errors.Is(err, errRefused) {
		res, err = s.persist(ctx, entries, false)
	}
	if err != nil {
		return Result{}, fmt.Errorf("persist %d orders: %w", len(entries), err)
	}
	return res, nil
}

func (s *Store) persist(ctx context.Context, entries []keyspace.Entry, tryFast bool) (Result, error) {
	var res Result
	s.ins.prepare(ctx)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		if res, err = persistTx(tx, s.ins, entries, tryFast); err != nil {
			return err
		}
		return s.announceConfirmed(tx, res.Inserted, res.prices)
	})
	return res, err
}

type itemStock struct {
	ID    int64
	Stock int
}

func persistTx(tx *gorm.DB, ins *inserts, entries []keyspace.Entry, tryFast bool) (Result, error) {
	if tryFast {
		if p, ok := planFast(entries); ok {
			return fastTx(tx, ins, entries, p)
		}
	}
	stock, err := lockItems(tx, entries)
	if err != nil {
		return Result{}, err
	}
	variants, err := readVariantStock(tx, stock)
	if err != nil {
		return Result{}, err
	}
	entries = resolveVariants(entries, variants)
	return carefulTx(tx, ins, entries, stock, variants)
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
