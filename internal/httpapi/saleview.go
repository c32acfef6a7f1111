package httpapi

import (
	"context"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/stock"
)

// SaleReader reads sales from MySQL (catalog.Store).
type SaleReader interface {
	Get(ctx context.Context, id int64) (catalog.Item, error)
	// Page is a page of the shop's list and the cursor of the next, nil
	// on the last page.
	Page(ctx context.Context, c catalog.Cursor, limit int) ([]catalog.Item, *catalog.Cursor, error)
}

// StockLevels reads live stock from Redis (stock.Store).
type StockLevels interface {
	Levels(ctx context.Context, itemIDs []int64) (map[int64]stock.Level, error)
}

// itemJSON and variantJSON are a sale and a variant as the API shows them.
type (
	itemJSON    = catalog.View
	variantJSON = catalog.VariantView
)

// saleView loads sales and shows them with live stock: the shop, the room
// and the admin handlers all answer with sales.
type saleView struct {
	replier
	catalog SaleReader
	stock   StockLevels
	now     func() time.Time
}

// present shows it with live stock from Redis when warm, else MySQL's.
func present(it catalog.Item, levels map[int64]stock.Level, now time.Time) itemJSON {
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

// itemFromPath loads the sale named by :id; when it cannot, it has
// answered already and reports false.
func (v saleView) itemFromPath(c *gin.Context) (catalog.Item, bool) {
	id, err := pathID(c, errItemNotFound)
	if err != nil {
		v.fail(c, err)
		return catalog.Item{}, false
	}
	it, err := v.catalog.Get(c.Request.Context(), id)
	if err != nil {
		v.fail(c, err)
		return catalog.Item{}, false
	}
	return it, true
}

// writeItem answers with the sale and its live stock.
func (v saleView) writeItem(c *gin.Context, status int, it catalog.Item) {
	levels, err := v.levels(c.Request.Context(), []catalog.Item{it})
	if err != nil {
		v.fail(c, err)
		return
	}
	c.JSON(status, present(it, levels, v.now()))
}

// levels reads the live stock of the sales that may be warm. A retired
// sale's figures are MySQL's, final since its orders were all persisted,
// so Redis, which no longer holds it, is not asked.
func (v saleView) levels(ctx context.Context, items []catalog.Item) (map[int64]stock.Level, error) {
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
