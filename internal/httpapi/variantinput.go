package httpapi

import (
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

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

// newVariants checks the variants of a sale being created.
func newVariants(ins []variantInput, it catalog.Item) ([]catalog.Variant, error) {
	if len(ins) < 1 || len(ins) > catalog.MaxVariants {
		return nil, invalid("variants", fmt.Sprintf("a sale has 1 to %d variants", catalog.MaxVariants))
	}
	out := make([]catalog.Variant, len(ins))
	for i, in := range ins {
		field := fmt.Sprintf("variants[%d]", i)
		if in.Label == nil || in.StockTotal == nil {
			return nil, invalid(field, field+" needs a label and a stock_total")
		}
		out[i] = in.patch().Apply(catalog.Variant{})
		if err := validateVariant(field, out[i], it); err != nil {
			return nil, err
		}
		for _, before := range out[:i] {
			if strings.EqualFold(before.Label, out[i].Label) {
				return nil, invalid(field+".label", "variant labels must differ: "+out[i].Label+" is given twice")
			}
		}
	}
	return out, nil
}

// validateVariant checks one variant as it would be in sale it; field names
// it in the answer ("variants[2]", or "" for a variant's own route).
func validateVariant(field string, v catalog.Variant, it catalog.Item) error {
	name := func(f string) string {
		if field == "" {
			return f
		}
		return field + "." + f
	}
	switch {
	case utf8.RuneCountInString(v.Label) < 1 || utf8.RuneCountInString(v.Label) > 40 || strings.TrimSpace(v.Label) != v.Label:
		return invalid(name("label"), "label must be 1 to 40 characters, without leading or trailing spaces")
	case v.StockTotal < 1 || v.StockTotal > 10_000_000:
		return invalid(name("stock_total"), "stock_total must be from 1 to 10000000")
	case v.PriceCents != nil && (*v.PriceCents < 0 || *v.PriceCents > 1e12):
		return invalid(name("price_cents"), "price_cents must be a whole number from 0 to 10^12, or null for the sale's price")
	case v.PerUserLimit != nil && (*v.PerUserLimit < 1 || *v.PerUserLimit > it.PerUserLimit):
		return invalid(name("per_user_limit"), "per_user_limit of a variant must be from 1 to the sale's, or null for the sale's")
	case !validImageURL(v.ImageURL):
		return invalid(name("image_url"), imageURLRule)
	}
	return nil
}

const imageURLRule = "image_url must be an https URL or a path on this server starting with /, at most 500 characters"

// validImageURL accepts what the pages can show under their Content
// Security Policy (img-src 'self' https:): an https URL with a host, or a
// path on this server. Anything that could break out of an attribute or
// name another scheme (javascript:, data:, protocol-relative //host) is
// refused; the pages set it as a property, never as markup, besides.
func validImageURL(s string) bool {
	if s == "" {
		return true
	}
	if len(s) > 500 || strings.ContainsAny(s, " \t\r\n\"'<>\\`") {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	if strings.HasPrefix(s, "/") {
		return !strings.HasPrefix(s, "//")
	}
	u, err := url.Parse(s)
	return err == nil && u.Scheme == "https" && u.Host != "" && u.User == nil
}
