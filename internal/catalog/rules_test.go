package catalog_test

import (
	"errors"
	"testing"

	"github.com/seckill/seckill/internal/catalog"
)

func TestVariantRules(t *testing.T) {
	ptr := func(n int) *int { return &n }
	price := func(n int64) *int64 { return &n }
	sale := catalog.Item{PerUserLimit: 3, Variants: []catalog.Variant{{ID: 1, Label: "Small"}, {ID: 2, Label: "Large"}}}
	ok := catalog.Variant{Label: "Medium", StockTotal: 10}
	with := func(f func(*catalog.Variant)) catalog.Variant { v := ok; f(&v); return v }
	tests := []struct {
		name  string
		v     catalog.Variant
		self  int64
		field string // "" when no field breaks a rule
		err   error
	}{
		{"fine", ok, 0, "", nil},
		{"empty label", with(func(v *catalog.Variant) { v.Label = "" }), 0, "label", nil},
		{"padded label", with(func(v *catalog.Variant) { v.Label = " M" }), 0, "label", nil},
		{"no stock", with(func(v *catalog.Variant) { v.StockTotal = 0 }), 0, "stock_total", nil},
		{"negative price", with(func(v *catalog.Variant) { v.PriceCents = price(-1) }), 0, "price_cents", nil},
		{"limit above the sale's", with(func(v *catalog.Variant) { v.PerUserLimit = ptr(4) }), 0, "per_user_limit", nil},
		{"script image", with(func(v *catalog.Variant) { v.ImageURL = "javascript:alert(1)" }), 0, "image_url", nil},
		{"another's label", with(func(v *catalog.Variant) { v.Label = "small" }), 0, "", catalog.ErrLabelTaken},
		{"its own label", with(func(v *catalog.Variant) { v.Label = "small" }), 1, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := sale.CheckVariant(tt.v, tt.self)
			var fe *catalog.FieldError
			switch {
			case tt.field != "":
				if !errors.As(err, &fe) || fe.Field != tt.field {
					t.Fatalf("CheckVariant = %v, want a rule on %s", err, tt.field)
				}
			case !errors.Is(err, tt.err):
				t.Fatalf("CheckVariant = %v, want %v", err, tt.err)
			}
		})
	}
}

func TestValidImageURL(t *testing.T) {
	for s, want := range map[string]bool{
		"": true, "/img/a.png": true, "https://cdn.example/a.png": true,
		"//evil.example/a.png": false, "http://cdn.example/a.png": false, "data:image/png;base64,AA": false,
		"https://u:p@cdn.example/a.png": false, "/a b.png": false, "/a\".png": false,
	} {
		if got := catalog.ValidImageURL(s); got != want {
			t.Errorf("ValidImageURL(%q) = %v, want %v", s, got, want)
		}
	}
}
