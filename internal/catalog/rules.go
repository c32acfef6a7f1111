package catalog

import (
	"net/url"
	"strings"
	"unicode/utf8"
)

// FieldError says which field of a variant breaks which rule. Field is the
// field's JSON name ("label", "stock_total"); Rule is a sentence a caller
// can show as it stands.
type FieldError struct {
	Field string
	Rule  string
}

func (e *FieldError) Error() string { return "catalog: " + e.Field + ": " + e.Rule }

// ImageURLRule is the rule ValidImageURL checks, in words.
const ImageURLRule = "image_url must be an https URL or a path on this server starting with /, at most 500 characters"

// Check checks v as a variant of sale it, whose per-user limit bounds v's.
// It returns a *FieldError naming the first field that breaks a rule.
func (v Variant) Check(it Item) error {
	switch {
	case utf8.RuneCountInString(v.Label) < 1 || utf8.RuneCountInString(v.Label) > 40 || strings.TrimSpace(v.Label) != v.Label:
		return &FieldError{"label", "label must be 1 to 40 characters, without leading or trailing spaces"}
	case v.StockTotal < 1 || v.StockTotal > 10_000_000:
		return &FieldError{"stock_total", "stock_total must be from 1 to 10000000"}
	case v.PriceCents != nil && (*v.PriceCents < 0 || *v.PriceCents > 1e12):
		return &FieldError{"price_cents", "price_cents must be a whole number from 0 to 10^12, or null for the sale's price"}
	case v.PerUserLimit != nil && (*v.PerUserLimit < 1 || *v.PerUserLimit > it.PerUserLimit):
		return &FieldError{"per_user_limit", "per_user_limit of a variant must be from 1 to the sale's, or null for the sale's"}
	case !ValidImageURL(v.ImageURL):
		return &FieldError{"image_url", ImageURLRule}
	}
	return nil
}

// CheckVariant checks v as a variant of it, added (self 0) or replacing the
// variant whose id is self, so that the others keep their labels. It returns
// v.Check's *FieldError, or ErrLabelTaken when another variant has v's label
// (labels compare without case).
func (it Item) CheckVariant(v Variant, self int64) error {
	if err := v.Check(it); err != nil {
		return err
	}
	for _, other := range it.Variants {
		if other.ID != self && strings.EqualFold(other.Label, v.Label) {
			return ErrLabelTaken
		}
	}
	return nil
}

// ValidImageURL accepts what the pages can show under their Content
// Security Policy (img-src 'self' https:): an https URL with a host, or a
// path on this server. Anything that could break out of an attribute or
// name another scheme (javascript:, data:, protocol-relative //host) is
// refused; the pages set it as a property, never as markup, besides.
func ValidImageURL(s string) bool {
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
