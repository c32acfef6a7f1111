package draw

import (
	"context"
	"time"

	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/keyspace"
)

// Stores are what the draw changes and reads outside its own tables
// (draw_entries) and keys: sales through the catalog, offers and buyers
// through the stock, orders through the order store. docs/architecture.md
// has every change to a sale go through those stores.
type Stores struct {
	Catalog Catalog
	Stock   Stock
	Orders  Orders
}

// Catalog reads and marks draw sales (catalog.Store).
type Catalog interface {
	Get(ctx context.Context, id int64) (catalog.Item, error)
	DrawsDue(ctx context.Context, now time.Time) ([]int64, error)
	DrawsOn(ctx context.Context, now time.Time) ([]int64, error)
	// WithTx is the catalog in the draw's transaction: the sale's row
	// lock and its drawn mark go with the entries' writes.
	WithTx(tx *gorm.DB) *catalog.Store
}

// Stock holds the offers of draw sales and their buyers in Redis
// (stock.Store).
type Stock interface {
	PublishOffers(ctx context.Context, itemID int64, offers map[string]string) error
	Offers(ctx context.Context, itemID int64) (map[string]string, error)
	OfferOf(ctx context.Context, itemID int64, userID string) (string, bool, error)
	PublishOffer(ctx context.Context, itemID int64, userID, value string) (string, error)
	ExpireOffer(ctx context.Context, itemID int64, userID string, now time.Time) (string, error)
	FreeUnits(ctx context.Context, itemID, variantID int64, now time.Time) (int, error)
	HoldsBuyer(ctx context.Context, itemID int64, userID string) (bool, error)
	BuyerOf(ctx context.Context, itemIDs []int64, userID string) (map[int64]keyspace.Buyer, error)
}

// Orders answers the draw's questions about orders (order.Store).
type Orders interface {
	Ordered(ctx context.Context, itemID int64, userID string) (bool, error)
	PaidOrders(ctx context.Context, itemID, variantID int64) (int, error)
}
