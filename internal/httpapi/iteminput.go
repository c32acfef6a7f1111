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
	PriceCents   *int64  `json:"price_cents"`
	StockTotal   *int    `json:"stock_total"`
	PerUserLimit *int    `json:"per_user_limit"`
	RoomRate     *int    `json:"room_rate"`
	StartsAt     *string `json:"starts_at"`
	EndsAt       *string `json:"ends_at"`
}

func (in itemInput) patch() (catalog.Patch, error) {
	p := catalog.Patch{Name: in.Name, Description: in.Description, PriceCents: in.PriceCents,
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

// readPatch decodes a create or update body into a patch.
func readPatch(c *gin.Context) (catalog.Patch, error) {
	var in itemInput
	if err := decode(c, &in, false); err != nil {
		return catalog.Patch{}, err
	}
	return in.patch()
}
