package catalog

import "time"

// View is a sale as the API shows it: the shop, the admin endpoints and
// the events sent to the shop's systems all answer with it.
type View struct {
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
	RetiredAt *time.Time `json:"retired_at"`
	Mode      string     `json:"mode"`
	// A draw's (omitted for a first-come sale): see package draw.
	EntriesOpenAt         *time.Time    `json:"entries_open_at,omitempty"`
	EntriesCloseAt        *time.Time    `json:"entries_close_at,omitempty"`
	PurchaseWindowSeconds *int          `json:"purchase_window_seconds,omitempty"`
	Variants              []VariantView `json:"variants"`
}

// VariantView is one variant of a sale as the API shows it; price_cents
// and per_user_limit are the ones that apply to it.
type VariantView struct {
	ID           int64  `json:"id"`
	Label        string `json:"label"`
	PriceCents   int64  `json:"price_cents"`
	PerUserLimit int    `json:"per_user_limit"`
	ImageURL     string `json:"image_url"`
	StockTotal   int    `json:"stock_total"`
	StockLeft    int    `json:"stock_left"`
	Status       string `json:"status"`
}

// View shows it at now with left units on sale, variantLeft(v) of them
// of variant v. MySQL's own figures are it.Stock and v.Stock; a warm sale's
// live ones are Redis's.
func (it Item) View(now time.Time, left int, variantLeft func(Variant) int) View {
	out := View{ID: it.ID, Name: it.Name, Description: it.Description, ImageURL: it.ImageURL,
		PriceCents: it.PriceCents, StockTotal: it.StockTotal, StockLeft: left, PerUserLimit: it.PerUserLimit,
		RoomRate: it.RoomRate, StartsAt: it.StartsAt.UTC(), EndsAt: it.EndsAt.UTC(), Status: it.Status(now, left),
		Paused: it.Paused, Mode: it.Mode, EntriesOpenAt: utc(it.EntriesOpenAt), EntriesCloseAt: utc(it.EntriesCloseAt),
		PurchaseWindowSeconds: it.PurchaseWindowSeconds,
		Variants:              make([]VariantView, len(it.Variants))}
	out.RetiredAt = utc(it.RetiredAt)
	for i, v := range it.Variants {
		vleft := variantLeft(v)
		out.Variants[i] = VariantView{ID: v.ID, Label: v.Label, PriceCents: v.Price(it), PerUserLimit: v.Limit(it),
			ImageURL: v.ImageURL, StockTotal: v.StockTotal, StockLeft: vleft, Status: it.Status(now, vleft)}
	}
	return out
}

// StoredView is View with MySQL's figures: what events about a sale show.
func (it Item) StoredView(now time.Time) View {
	return it.View(now, it.Stock, func(v Variant) int { return v.Stock })
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
