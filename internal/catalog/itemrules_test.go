package catalog_test

import (
	"errors"
	"testing"

	"github.com/seckill/seckill/internal/catalog"
)

func TestItemInputRules(t *testing.T) {
	str := func(s string) *string { return &s }
	num := func(n int) *int { return &n }
	sale := func(f func(*catalog.Input)) catalog.Input {
		in := catalog.Input{Name: str("Sneaker"), StockTotal: num(10),
			StartsAt: str("2026-11-22T10:00:00Z"), EndsAt: str("2026-11-22T12:00:00Z")}
		if f != nil {
			f(&in)
		}
		return in
	}
	label := func(l string) catalog.VariantPatch { return catalog.VariantPatch{Label: &l, StockTotal: num(1)} }
	for _, tc := range []struct {
		name  string
		in    catalog.Input
		field string // "": valid
	}{
		{"valid", sale(nil), ""},
		{"no name", sale(func(in *catalog.Input) { in.Name = nil }), "name"},
		{"bad time", sale(func(in *catalog.Input) { in.StartsAt = str("2026-11-22") }), "starts_at"},
		{"ends first", sale(func(in *catalog.Input) { in.EndsAt = str("2026-11-22T09:00:00Z") }), "ends_at"},
		{"draw fields without draw", sale(func(in *catalog.Input) { in.EntriesOpenAt = str("2026-11-22T08:00:00Z") }), "mode"},
		{"draw without entries", sale(func(in *catalog.Input) { in.Mode = str(catalog.ModeDraw) }), "entries_open_at"},
		{"twice the label", sale(func(in *catalog.Input) {
			in.StockTotal = nil
			in.Variants = &[]catalog.VariantPatch{label("Red"), label("red")}
		}), "variants[1].label"},
		{"variant without stock", sale(func(in *catalog.Input) {
			in.Variants = &[]catalog.VariantPatch{{Label: str("Red")}}
		}), "variants[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.in.NewItem()
			var fe *catalog.FieldError
			switch {
			case tc.field == "" && err != nil:
				t.Fatalf("NewItem: %v, want a valid sale", err)
			case tc.field != "" && (!errors.As(err, &fe) || fe.Field != tc.field):
				t.Fatalf("NewItem: %v, want a *FieldError on %s", err, tc.field)
			}
		})
	}
	if _, err := sale(nil).UpdatePatch(); err != nil {
		t.Fatalf("UpdatePatch: %v", err)
	}
	in := sale(func(in *catalog.Input) { in.Mode = str(catalog.ModeDraw) })
	if _, err := in.UpdatePatch(); !errors.As(err, new(*catalog.FieldError)) {
		t.Fatalf("UpdatePatch of a mode: %v, want a *FieldError", err)
	}
}
