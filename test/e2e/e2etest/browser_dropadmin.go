package e2etest

import (
	"testing"
)

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
