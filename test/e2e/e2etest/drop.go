package e2etest

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/testenv"
)

// LiveDrop creates a drop open now (by the real clock) of one variant per stock given, one order
// per shopper, and returns its id and its variants' ids.
func (s *Server) LiveDrop(tb testing.TB, stocks ...int) (int64, []int64) {
	tb.Helper()
	variants := make([]map[string]any, len(stocks))
	for i, n := range stocks {
		variants[i] = map[string]any{"label": "EU " + strconv.Itoa(40+i), "stock_total": n}
	}
	r := s.Call(tb, "POST", "/api/v1/admin/items", AdminToken, map[string]any{
		"name": "Aurora runners, the drop", "price_cents": 12900, "per_user_limit": 1, "variants": variants,
		"starts_at": time.Now().Add(-time.Minute).Format(time.RFC3339Nano),
		"ends_at":   time.Now().Add(time.Hour).Format(time.RFC3339Nano),
	})
	if r.Status != 201 {
		tb.Fatalf("create drop: %d %s", r.Status, r.Raw)
	}
	var ids []int64
	for _, v := range r.Body["variants"].([]any) {
		ids = append(ids, int64(v.(map[string]any)["id"].(float64)))
	}
	return int64(r.Body["id"].(float64)), ids
}

// BuyVariant buys one unit of a variant with the body the shop page sends.
func (s *Server) BuyVariant(tb testing.TB, item, variant int64, token, key string) Reply {
	tb.Helper()
	var hdr []string
	if key != "" {
		hdr = []string{"Idempotency-Key", key}
	}
	body := fmt.Sprintf(`{"variant_id":%d,"quantity":1}`, variant)
	return s.Call(tb, "POST", "/api/v1/items/"+Itoa(item)+"/purchase", token, body, hdr...)
}

// DropBody is a drop of sneakers in sizes as an admin creates it.
func DropBody(starts time.Time, variants ...map[string]any) map[string]any {
	if variants == nil {
		variants = []map[string]any{} // sent as [], not null
	}
	return map[string]any{"name": "Aurora sneakers", "description": "One pair per customer.", "price_cents": 12900,
		"per_user_limit": 2, "image_url": "/static/img/aurora.svg", "variants": variants,
		"starts_at": starts.Format(time.RFC3339Nano), "ends_at": starts.Add(time.Hour).Format(time.RFC3339Nano)}
}

// Size is a variant row for DropBody: label, stock, then extra
// key/value pairs.
func Size(label string, stock int, extra ...any) map[string]any {
	v := map[string]any{"label": label, "stock_total": stock}
	for i := 0; i+1 < len(extra); i += 2 {
		v[extra[i].(string)] = extra[i+1]
	}
	return v
}

// VariantIDs reads the ids of an item answer's variants by label.
func VariantIDs(tb testing.TB, r Reply) map[string]int64 {
	tb.Helper()
	out := map[string]int64{}
	vs, _ := r.Body["variants"].([]any)
	for _, v := range vs {
		m := v.(map[string]any)
		out[m["label"].(string)] = int64(m["id"].(float64))
	}
	if len(out) == 0 {
		tb.Fatalf("no variants in %s", r.Raw)
	}
	return out
}

// Num reads a JSON number field as an int.
func Num(m map[string]any, k string) int {
	f, _ := m[k].(float64)
	return int(f)
}

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

// VariantsOf reads a sale's variants through the public API, by label.
func (s *Server) VariantsOf(tb testing.TB, id int64) map[string]map[string]any {
	tb.Helper()
	out := map[string]map[string]any{}
	for _, v := range s.Call(tb, "GET", "/api/v1/items/"+Itoa(id), "", nil).Body["variants"].([]any) {
		m := v.(map[string]any)
		out[m["label"].(string)] = m
	}
	return out
}

// SellsAgainOn buys (body, nil for the default) as user on s until it works, failing on anything but
// sold_out meanwhile or after 2 s.
func SellsAgainOn(t *testing.T, s *Server, path string, body any, user, after string) {
	t.Helper()
	since := time.Now()
	var r Reply
	if !testenv.Eventually(2*time.Second, func() bool {
		r = s.Call(t, "POST", path, MintToken(t, user), body)
		if r.Status != 202 && r.Status != 410 {
			t.Fatalf("server b after %s: %d %s", after, r.Status, r.Raw)
		}
		return r.Status == 202
	}) {
		t.Fatalf("server b after %s, for 2s: %d %s", after, r.Status, r.Raw)
	}
	t.Logf("server b sold the returned unit %v after %s", time.Since(since), after)
}
