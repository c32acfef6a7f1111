package catalog

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// DefaultPurchaseWindow is how long a drawn shopper has to buy, unless the
// sale says otherwise (package draw offers the units).
const DefaultPurchaseWindow = 600 * time.Second

// Input is what a create or update body says of a sale; nil is absent.
// Times stay strings until here so that a malformed one is reported with
// its field's name. Every error the methods return is a *FieldError naming
// the field by its JSON name.
type Input struct {
	Name         *string
	Description  *string
	ImageURL     *string
	PriceCents   *int64
	StockTotal   *int
	PerUserLimit *int
	RoomRate     *int
	StartsAt     *string
	EndsAt       *string
	// Variants only on create; they are changed one by one afterwards.
	Variants *[]VariantPatch
	// A draw's, only on create (see package draw).
	Mode                  *string
	EntriesOpenAt         *string
	EntriesCloseAt        *string
	PurchaseWindowSeconds *int
}

func fieldErr(field, rule string) *FieldError { return &FieldError{Field: field, Rule: rule} }

func (in Input) drawFields() bool {
	return in.Mode != nil || in.EntriesOpenAt != nil || in.EntriesCloseAt != nil || in.PurchaseWindowSeconds != nil
}

// UpdatePatch is the patch an update body asks for. Variants, the mode and
// the draw's fields are refused: they change elsewhere or never.
func (in Input) UpdatePatch() (Patch, error) {
	if in.Variants != nil {
		return Patch{}, fieldErr("variants", "variants are changed one by one, under /variants/{variant_id}")
	}
	if in.drawFields() {
		return Patch{}, fieldErr("mode", "a sale's mode and draw fields are set when it is created")
	}
	return in.patch()
}

func (in Input) patch() (Patch, error) {
	p := Patch{Name: in.Name, Description: in.Description, ImageURL: in.ImageURL, PriceCents: in.PriceCents,
		StockTotal: in.StockTotal, PerUserLimit: in.PerUserLimit, RoomRate: in.RoomRate}
	var err error
	if p.StartsAt, err = parseTime("starts_at", in.StartsAt); err != nil {
		return p, err
	}
	p.EndsAt, err = parseTime("ends_at", in.EndsAt)
	return p, err
}

func parseTime(field string, s *string) (*time.Time, error) {
	if s == nil {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, *s)
	if err != nil {
		return nil, fieldErr(field, field+" must be a time in RFC 3339 form, e.g. 2026-11-22T10:00:00Z")
	}
	t = t.UTC().Truncate(time.Millisecond) // MySQL keeps milliseconds
	if t.Year() < 1000 || t.Year() > 9999 {
		return nil, fieldErr(field, field+" must be between the years 1000 and 9999")
	}
	return &t, nil
}

// NewItem is the sale a create body asks for, checked, with its variants.
// A sale sent with variants has the sum of their stock, so its own
// stock_total is left out (or equals that sum); one sent without gets a
// single "Default" variant when it is stored.
func (in Input) NewItem() (Item, error) {
	p, err := in.patch()
	if err != nil {
		return Item{}, err
	}
	it := p.Apply(Item{PerUserLimit: 1})
	if err := in.draw(&it); err != nil {
		return Item{}, err
	}
	if in.Variants != nil {
		if it.Variants, err = newVariants(*in.Variants, it); err != nil {
			return Item{}, err
		}
		it.StockTotal = 0
		for _, v := range it.Variants {
			it.StockTotal += v.StockTotal
		}
		// Sent anyway, it can only say the same thing.
		if in.StockTotal != nil && *in.StockTotal != it.StockTotal {
			return Item{}, fieldErr("stock_total", "stock_total of a sale with variants is the sum of theirs: leave it out")
		}
	}
	return it, it.Check()
}

// newVariants checks the variants of a sale being created; a broken rule
// names the variant by its place ("variants[2].label").
func newVariants(ps []VariantPatch, it Item) ([]Variant, error) {
	if len(ps) < 1 || len(ps) > MaxVariants {
		return nil, fieldErr("variants", fmt.Sprintf("a sale has 1 to %d variants", MaxVariants))
	}
	out := make([]Variant, len(ps))
	for i, p := range ps {
		field := fmt.Sprintf("variants[%d]", i)
		if p.Label == nil || p.StockTotal == nil {
			return nil, fieldErr(field, field+" needs a label and a stock_total")
		}
		out[i] = p.Apply(Variant{})
		if err := out[i].Check(it); err != nil {
			var fe *FieldError
			if errors.As(err, &fe) {
				return nil, fieldErr(field+"."+fe.Field, fe.Rule)
			}
			return nil, err
		}
		for _, before := range out[:i] {
			if strings.EqualFold(before.Label, out[i].Label) {
				return nil, fieldErr(field+".label", "variant labels must differ: "+out[i].Label+" is given twice")
			}
		}
	}
	return out, nil
}
