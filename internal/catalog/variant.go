package catalog

import (
	"errors"
	"time"
)

// MaxVariants is how many variants one sale may have.
const MaxVariants = 64

// Variant is one thing a sale sells (a size, a colour) with its own stock.
// Stock is authoritative as the item's is: StockTotal minus the variant's
// persisted active orders.
type Variant struct {
	ID           int64
	ItemID       int64
	Position     int // order in the shop's picker
	Label        string
	PriceCents   *int64 // nil: the sale's price
	PerUserLimit *int   // nil: the sale's limit; else at most the sale's
	ImageURL     string
	StockTotal   int
	Stock        int
	// DrawUnits is StockTotal when the sale was drawn (nil before, and in
	// a first-come sale): what the published draw is checked against.
	DrawUnits *int
	CreatedAt time.Time
	UpdatedAt time.Time
}

// TableName maps Variant onto the variants table.
func (Variant) TableName() string { return "variants" }

// Price is what one unit of v costs in sale it.
func (v Variant) Price(it Item) int64 {
	if v.PriceCents != nil {
		return *v.PriceCents
	}
	return it.PriceCents
}

// Limit is how many units of v one shopper may hold in sale it: the sale's
// limit, or the variant's own if lower.
func (v Variant) Limit(it Item) int {
	if v.PerUserLimit != nil && *v.PerUserLimit < it.PerUserLimit {
		return *v.PerUserLimit
	}
	return it.PerUserLimit
}

// DefaultLabel names the one variant of a sale created without variants.
const DefaultLabel = "Default"

// VariantPatch lists the fields of a variant an admin changes; nil means
// unchanged. ClearPrice and ClearLimit put back the sale's.
type VariantPatch struct {
	Label        *string
	StockTotal   *int
	PriceCents   *int64
	ClearPrice   bool
	PerUserLimit *int
	ClearLimit   bool
	ImageURL     *string
}

// Apply returns v with the patch's fields set.
func (p VariantPatch) Apply(v Variant) Variant {
	set(&v.Label, p.Label)
	set(&v.StockTotal, p.StockTotal)
	set(&v.ImageURL, p.ImageURL)
	if p.PriceCents != nil || p.ClearPrice {
		v.PriceCents = p.PriceCents
	}
	if p.PerUserLimit != nil || p.ClearLimit {
		v.PerUserLimit = p.PerUserLimit
	}
	return v
}

// Errors of adding, changing and removing a sale's variants.
var (
	// ErrVariantNotFound: no such variant in this sale.
	ErrVariantNotFound = errors.New("catalog: variant not found")
	// ErrLabelTaken: another variant of the sale has the label.
	ErrLabelTaken = errors.New("catalog: variant label taken")
	// ErrSaleOpened: variants are added and removed only before a sale
	// opens, and a variant that orders refer to is never removed.
	ErrSaleOpened = errors.New("catalog: the sale has opened")
	// ErrVariantCount: a sale has 1 to MaxVariants variants.
	ErrVariantCount = errors.New("catalog: a sale has 1 to 64 variants")
)
