// Package saleview builds the views of sales that the shop, the waiting
// room and the admin pages answer with: a sale with its live stock, a page
// of the shop's list, the shared snapshots of both, and a shopper's place
// in a waiting room. It reads the catalog and stock stores and knows
// nothing of HTTP, so the handlers only parse, call and answer.
package saleview

import (
	"context"
	"time"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/stock"
)

// Catalog reads sales from MySQL (catalog.Store).
type Catalog interface {
	Get(ctx context.Context, id int64) (catalog.Item, error)
	// Page is a page of the shop's list and the cursor of the next, nil
	// on the last page.
	Page(ctx context.Context, c catalog.Cursor, limit int) ([]catalog.Item, *catalog.Cursor, error)
}

// Stock reads live stock from Redis (stock.Store).
type Stock interface {
	Levels(ctx context.Context, itemIDs []int64) (map[int64]stock.Level, error)
}

// Item and Variant are a sale and a variant as the API shows them.
type (
	Item    = catalog.View
	Variant = catalog.VariantView
)

// View loads sales and shows them with live stock: the shop, the room and
// the admin pages all answer with sales.
type View struct {
	catalog Catalog
	stock   Stock
	now     func() time.Time
}

// New is a View reading sales from c and their live stock from s; now
// decides each sale's status.
func New(c Catalog, s Stock, now func() time.Time) View {
	return View{catalog: c, stock: s, now: now}
}

// Sale loads the sale id and shows it with its live stock. Its errors are
// the catalog's (catalog.ErrNotFound among them) and the stock store's.
func (v View) Sale(ctx context.Context, id int64) (Item, error) {
	it, err := v.catalog.Get(ctx, id)
	if err != nil {
		return Item{}, err
	}
	return v.Of(ctx, it)
}

// Of shows it with its live stock; its errors are the stock store's.
func (v View) Of(ctx context.Context, it catalog.Item) (Item, error) {
	levels, err := v.levels(ctx, []catalog.Item{it})
	if err != nil {
		return Item{}, err
	}
	return present(it, levels, v.now()), nil
}

// present shows it with live stock from Redis when warm, else MySQL's.
func present(it catalog.Item, levels map[int64]stock.Level, now time.Time) Item {
	level, warm := levels[it.ID]
	left := it.Stock
	if warm {
		left = int(level.Total)
	}
	return it.View(now, left, func(v catalog.Variant) int {
		if n, ok := level.Variants[v.ID]; ok {
			return int(n)
		}
		return v.Stock
	})
}

// levels reads the live stock of the sales that may be warm. A retired
// sale's figures are MySQL's, final since its orders were all persisted,
// so Redis, which no longer holds it, is not asked.
func (v View) levels(ctx context.Context, items []catalog.Item) (map[int64]stock.Level, error) {
	ids := make([]int64, 0, len(items))
	for _, it := range items {
		if it.RetiredAt == nil {
			ids = append(ids, it.ID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	return v.stock.Levels(ctx, ids)
}
