package e2etest

import (
	"testing"
	"time"
)

// DropVariant is one variant of a sale the drop browser tests create;
// zero price, limit and image are left out (the sale's apply).
type DropVariant struct {
	Label string `json:"label"`
	Stock int    `json:"stock_total"`
	Price int64  `json:"price_cents,omitempty"`
	Limit int    `json:"per_user_limit,omitempty"`
	Image string `json:"image_url,omitempty"`
}

// PageDrop creates a sale of variants open from starts for an hour and
// returns its id and its variants' ids by label.
func (s *Server) PageDrop(tb testing.TB, name string, price int64, limit int, image string, starts time.Time, vs ...DropVariant) (int64, map[string]int64) {
	tb.Helper()
	r := s.Call(tb, "POST", "/api/v1/admin/items", AdminToken, map[string]any{
		"name": name, "description": "Limited pairs, one per shopper.", "price_cents": price, "per_user_limit": limit,
		"image_url": image, "starts_at": starts.Format(time.RFC3339Nano), "ends_at": starts.Add(time.Hour).Format(time.RFC3339Nano),
		"variants": vs,
	})
	if r.Status != 201 {
		tb.Fatalf("create drop: %d %s", r.Status, r.Raw)
	}
	return int64(r.Body["id"].(float64)), VariantIDs(tb, r)
}

// PageBuy buys one unit of a variant as a shopper's program would, with a
// purchase token.
func (s *Server) PageBuy(tb testing.TB, itemID, variantID int64, shopper string) Reply {
	tb.Helper()
	tok := MintToken(tb, shopper)
	pt := s.Call(tb, "GET", "/api/v1/items/"+Itoa(itemID)+"/purchase-token", tok, nil)
	if pt.Status != 200 {
		tb.Fatalf("purchase token: %d %s", pt.Status, pt.Raw)
	}
	return s.Call(tb, "POST", "/api/v1/items/"+Itoa(itemID)+"/purchase", tok,
		`{"variant_id":`+Itoa(variantID)+`,"quantity":1}`, "X-Purchase-Token", pt.Str("token"))
}
