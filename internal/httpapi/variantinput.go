package httpapi

import (
	"errors"

	"github.com/seckill/seckill/internal/catalog"
)

// variantInput is one variant in a create body, or the body of a variant's
// add or update; absent fields are nil. price_cents and per_user_limit may
// be null on update, to fall back to the sale's.
type variantInput struct {
	Label        *string         `json:"label"`
	StockTotal   *int            `json:"stock_total"`
	PriceCents   nullable[int64] `json:"price_cents"`
	PerUserLimit nullable[int]   `json:"per_user_limit"`
	ImageURL     *string         `json:"image_url"`
}

func (in variantInput) patch() catalog.VariantPatch {
	return catalog.VariantPatch{Label: in.Label, StockTotal: in.StockTotal, ImageURL: in.ImageURL,
		PriceCents: in.PriceCents.val, ClearPrice: in.PriceCents.null,
		PerUserLimit: in.PerUserLimit.val, ClearLimit: in.PerUserLimit.null}
}

// invalidField answers a catalog rule broken by a request's field, named
// with prefix in front ("variants[2]." on create, "" on a variant's own
// route); any other error passes through to the error table.
func invalidField(prefix string, err error) error {
	if err == nil {
		return nil
	}
	var fe *catalog.FieldError
	if errors.As(err, &fe) {
		return invalid(prefix+fe.Field, fe.Rule)
	}
	return err
}
