package e2etest

import (
	"testing"
	"time"
)

// DropBody is a drop of sneakers in sizes as an admin creates it.
func DropBody(starts time.Time, variants ...map[string]any) map[string]any {
	if variants == nil {
		variants = []map[string]any{} // sent as [], not null
	}
	return map[string]any{"name": "Aurora sneakers", "description": "One pair per customer.", "price_cents": 12900,
		"per_user_limit": 2, "image_url": "/static/img/aurora.svg", "variants": variants,
		"starts_at": starts.Format(time.RFC3339Nano), "ends_at": starts.Add(time.Hour).Format(time.RFC3339Nano)}
}

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
