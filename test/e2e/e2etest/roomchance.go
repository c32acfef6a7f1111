package e2etest

import (
	"testing"
)

// OnlyOrder is the id of the shopper's one active order.
func OnlyOrder(t *testing.T, s *Server, tok string) string {
	t.Helper()
	r := s.Call(t, "GET", "/api/v1/orders", tok, nil)
	list, _ := r.Body["orders"].([]any)
	for _, o := range list {
		if m := o.(map[string]any); m["status"] != "cancelled" {
			return m["order_id"].(string)
		}
	}
	t.Fatalf("no active order: %s", r.Raw)
	return ""
}
