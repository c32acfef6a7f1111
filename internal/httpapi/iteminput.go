package httpapi

import (
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/draw"
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
	// A draw's, only on create (see package draw).
	Mode                  *string `json:"mode"`
	EntriesOpenAt         *string `json:"entries_open_at"`
	EntriesCloseAt        *string `json:"entries_close_at"`
	PurchaseWindowSeconds *int    `json:"purchase_window_seconds"`
}

// drawFields reports whether in sets any of a draw's fields.
func (in itemInput) drawFields() bool {
	return in.Mode != nil || in.EntriesOpenAt != nil || in.EntriesCloseAt != nil || in.PurchaseWindowSeconds != nil
}

// draw fills in the draw fields of a new sale. A draw's purchases open at
// the close of its entries unless starts_at says later, and each shopper
// may hold one unit.
func (in itemInput) draw(it *catalog.Item) error {
	it.Mode = catalog.ModeFirstCome
	if in.Mode != nil {
		it.Mode = *in.Mode
	}
	switch it.Mode {
	case catalog.ModeFirstCome:
		if in.EntriesOpenAt != nil || in.EntriesCloseAt != nil || in.PurchaseWindowSeconds != nil {
			return invalid("mode", `entries_open_at, entries_close_at and purchase_window_seconds are a draw's: set "mode": "draw"`)
		}
		return nil
	case catalog.ModeDraw:
	default:
		return invalid("mode", `mode must be "first_come" or "draw"`)
	}
	var err error
	if it.EntriesOpenAt, err = parseTime("entries_open_at", in.EntriesOpenAt); err != nil {
		return err
	}
	if it.EntriesCloseAt, err = parseTime("entries_close_at", in.EntriesCloseAt); err != nil {
		return err
	}
	switch {
	case it.EntriesOpenAt == nil:
		return invalid("entries_open_at", "a draw needs entries_open_at")
	case it.EntriesCloseAt == nil:
		return invalid("entries_close_at", "a draw needs entries_close_at")
	case !it.EntriesCloseAt.After(*it.EntriesOpenAt):
		return invalid("entries_close_at", "entries_close_at must be after entries_open_at")
	}
	window := int(draw.DefaultPurchaseWindow / time.Second)
	if in.PurchaseWindowSeconds != nil {
		window = *in.PurchaseWindowSeconds
	}
	if window < 10 || window > 7*24*3600 {
		return invalid("purchase_window_seconds", "purchase_window_seconds must be from 10 to 604800 (a week)")
	}
	it.PurchaseWindowSeconds = &window
	if in.StartsAt == nil {
		it.StartsAt = *it.EntriesCloseAt
	}
	if in.PerUserLimit != nil && *in.PerUserLimit != 1 {
		return invalid("per_user_limit", "a draw gives each shopper one unit: per_user_limit is 1")
	}
	it.PerUserLimit = 1
	return nil
}

// validateDraw checks what a draw adds to validate.
func validateDraw(it catalog.Item) error {
	switch {
	case !it.IsDraw():
		return nil
	case it.RoomRate != 0:
		return invalid("room_rate", "a draw has no waiting room: its winners are drawn, not queued")
	case it.PerUserLimit != 1:
		return invalid("per_user_limit", "a draw gives each shopper one unit: per_user_limit is 1")
	case it.StartsAt.Before(*it.EntriesCloseAt):
		return invalid("starts_at", "a draw's purchases start at entries_close_at or later")
	}
	return nil
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
	case !catalog.ValidImageURL(it.ImageURL):
		return invalid("image_url", catalog.ImageURLRule)
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
	return validateDraw(it)
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
	if in.drawFields() {
		return catalog.Patch{}, invalid("mode", "a sale's mode and draw fields are set when it is created")
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
	if err := in.draw(&it); err != nil {
		return catalog.Item{}, err
	}
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
