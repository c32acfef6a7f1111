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

// itemJSON is a sale as the API shows it.
type itemJSON struct {
	ID           int64     `json:"id"`
	Name         string    `json:"name"`
	Description  string    `json:"description"`
	ImageURL     string    `json:"image_url"`
	PriceCents   int64     `json:"price_cents"`
	StockTotal   int       `json:"stock_total"`
	StockLeft    int       `json:"stock_left"`
	PerUserLimit int       `json:"per_user_limit"`
	RoomRate     int       `json:"room_rate"`
	StartsAt     time.Time `json:"starts_at"`
	EndsAt       time.Time `json:"ends_at"`
	Status       string    `json:"status"`
	Paused       bool      `json:"paused"`
	// RetiredAt is null until the sale is retired (see sale.Service.Retire).
	RetiredAt *time.Time    `json:"retired_at"`
	Variants  []variantJSON `json:"variants"`
}

// variantJSON is one variant of a sale as the API shows it; price_cents
// and per_user_limit are the ones that apply to it.
type variantJSON struct {
	ID           int64  `json:"id"`
	Label        string `json:"label"`
	PriceCents   int64  `json:"price_cents"`
	PerUserLimit int    `json:"per_user_limit"`
	ImageURL     string `json:"image_url"`
	StockTotal   int    `json:"stock_total"`
	StockLeft    int    `json:"stock_left"`
	Status       string `json:"status"`
}

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
	out := itemJSON{ID: it.ID, Name: it.Name, Description: it.Description, ImageURL: it.ImageURL,
		PriceCents: it.PriceCents, StockTotal: it.StockTotal, StockLeft: left, PerUserLimit: it.PerUserLimit,
		RoomRate: it.RoomRate, StartsAt: it.StartsAt.UTC(), EndsAt: it.EndsAt.UTC(), Status: it.Status(now, left),
		Paused:   it.Paused,
		Variants: make([]variantJSON, len(it.Variants))}
	if it.RetiredAt != nil {
		at := it.RetiredAt.UTC()
		out.RetiredAt = &at
	}
	for i, v := range it.Variants {
		vleft := v.Stock
		if n, ok := level.Variants[v.ID]; ok {
			vleft = int(n)
		}
		out.Variants[i] = variantJSON{ID: v.ID, Label: v.Label, PriceCents: v.Price(it), PerUserLimit: v.Limit(it),
			ImageURL: v.ImageURL, StockTotal: v.StockTotal, StockLeft: vleft, Status: it.Status(now, vleft)}
	}
	return out
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
