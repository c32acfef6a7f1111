package httpapi

import (
	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/catalog"
)

// itemInput is the body of create and update; absent fields are nil. The
// sale's rules are the catalog's (catalog.Input); this only binds JSON.
type itemInput struct {
	Name                  *string         `json:"name"`
	Description           *string         `json:"description"`
	ImageURL              *string         `json:"image_url"`
	PriceCents            *int64          `json:"price_cents"`
	StockTotal            *int            `json:"stock_total"`
	PerUserLimit          *int            `json:"per_user_limit"`
	RoomRate              *int            `json:"room_rate"`
	StartsAt              *string         `json:"starts_at"`
	EndsAt                *string         `json:"ends_at"`
	Variants              *[]variantInput `json:"variants"`
	Mode                  *string         `json:"mode"`
	EntriesOpenAt         *string         `json:"entries_open_at"`
	EntriesCloseAt        *string         `json:"entries_close_at"`
	PurchaseWindowSeconds *int            `json:"purchase_window_seconds"`
}

func (in itemInput) catalog() catalog.Input {
	out := catalog.Input{Name: in.Name, Description: in.Description, ImageURL: in.ImageURL,
		PriceCents: in.PriceCents, StockTotal: in.StockTotal, PerUserLimit: in.PerUserLimit, RoomRate: in.RoomRate,
		StartsAt: in.StartsAt, EndsAt: in.EndsAt, Mode: in.Mode, EntriesOpenAt: in.EntriesOpenAt,
		EntriesCloseAt: in.EntriesCloseAt, PurchaseWindowSeconds: in.PurchaseWindowSeconds}
	if in.Variants != nil {
		vs := make([]catalog.VariantPatch, len(*in.Variants))
		for i, v := range *in.Variants {
			vs[i] = v.patch()
		}
		out.Variants = &vs
	}
	return out
}

// readPatch decodes an update body into a patch.
func readPatch(c *gin.Context) (catalog.Patch, error) {
	var in itemInput
	if err := decode(c, &in, false); err != nil {
		return catalog.Patch{}, err
	}
	p, err := in.catalog().UpdatePatch()
	return p, invalidField("", err)
}

// readNewItem decodes and checks a create body: the sale and its variants.
func readNewItem(c *gin.Context) (catalog.Item, error) {
	var in itemInput
	if err := decode(c, &in, false); err != nil {
		return catalog.Item{}, err
	}
	it, err := in.catalog().NewItem()
	return it, invalidField("", err)
}
