package httpapi

import (
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/catalog"
)

// itemInput is the body of create and update; absent fields are nil. Times
// are strings so a malformed one is reported with its field name.
type itemInput struct {
	Name         *string `json:"name"`
	Description  *string `json:"description"`
	ImageURL     *string `json:"image_url"`
	PriceCents   *int64  `json:"price_cents"`
	StockTotal   *int    `json:"stock_total"`
	PerUserLimit *int    `json:"per_user_limit"`
	RoomRate     *int    `json:"room_rate"`
	StartsAt     *string `json:"starts_at"`
	EndsAt       *string `json:"ends_at"`
	// Variants only on create; they are changed one by one afterwards.
	Variants *[]variantInput `json:"variants"`
}

func (in itemInput) patch() (catalog.Patch, error) {
	p := catalog.Patch{Name: in.Name, Description: in.Description, ImageURL: in.ImageURL, PriceCents: in.PriceCents,
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
		return nil, invalid(field, field+" must be a time in RFC 3339 form, e.g. 2026-11-22T10:00:00Z")
	}
	t = t.UTC().Truncate(time.Millisecond) // MySQL keeps milliseconds
	if t.Year() < 1000 || t.Year() > 9999 {
		return nil, invalid(field, field+" must be between the years 1000 and 9999")
	}
	return &t, nil
}

// validate checks a whole item, as created or as it would be after an update.
func validate(it catalog.Item) error {
	switch {
	case len(it.Name) == 0 || len(it.Name) > 200:
		return invalid("name", "name is required, at most 200 characters")
	case len(it.Description) > 10000:
		return invalid("description", "description is at most 10000 characters")
	case !validImageURL(it.ImageURL):
		return invalid("image_url", imageURLRule)
	case it.PriceCents < 0 || it.PriceCents > 1e12:
		return invalid("price_cents", "price_cents must be a whole number from 0 to 10^12")
	case it.StockTotal < 1 || it.StockTotal > 10_000_000:
		return invalid("stock_total", "stock_total must be from 1 to 10000000")
	case it.PerUserLimit < 1 || it.PerUserLimit > it.StockTotal:
		return invalid("per_user_limit", "per_user_limit must be from 1 to stock_total")
	case it.RoomRate < 0 || it.RoomRate > 100_000:
		return invalid("room_rate", "room_rate must be from 0 (no waiting room) to 100000 shoppers per second")
	case it.StartsAt.IsZero():
		return invalid("starts_at", "starts_at is required")
	case it.EndsAt.IsZero():
		return invalid("ends_at", "ends_at is required")
	case !it.EndsAt.After(it.StartsAt):
		return invalid("ends_at", "ends_at must be after starts_at")
	}
	return nil
}

// readPatch decodes an update body into a patch.
func readPatch(c *gin.Context) (catalog.Patch, error) {
	var in itemInput
	if err := decode(c, &in, false); err != nil {
		return catalog.Patch{}, err
	}
	if in.Variants != nil {
		return catalog.Patch{}, invalid("variants", "variants are changed one by one, under /variants/{variant_id}")
	}
	return in.patch()
}

// readNewItem decodes and checks a create body: the sale and its variants.
// A sale sent with variants has the sum of their stock, so its own
// stock_total is left out (or equals that sum); one sent without gets a
// single "Default" variant.
func readNewItem(c *gin.Context) (catalog.Item, error) {
	var in itemInput
	if err := decode(c, &in, false); err != nil {
		return catalog.Item{}, err
	}
	p, err := in.patch()
	if err != nil {
		return catalog.Item{}, err
	}
	it := p.Apply(catalog.Item{PerUserLimit: 1})
	if in.Variants != nil {
		if it.Variants, err = newVariants(*in.Variants, it); err != nil {
			return catalog.Item{}, err
		}
		it.StockTotal = 0
		for _, v := range it.Variants {
			it.StockTotal += v.StockTotal
		}
		// Sent anyway, it can only say the same thing.
		if in.StockTotal != nil && *in.StockTotal != it.StockTotal {
			return catalog.Item{}, invalid("stock_total", "stock_total of a sale with variants is the sum of theirs: leave it out")
		}
	}
	return it, validate(it)
}
