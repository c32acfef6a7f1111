package e2etest

import (
	"net/url"
	"testing"
)

// RedisStock is the sale's stock in Redis by the admin stats.
func (s *Server) RedisStock(tb testing.TB, id int64) int64 {
	tb.Helper()
	r := s.Stats(tb, id)
	n, ok := r.Body["stock_redis"].(float64)
	if r.Status != 200 || !ok {
		tb.Fatalf("stats of sale %d: %d %s", id, r.Status, r.Raw)
	}
	return int64(n)
}

// ItemCount is the number of sales in the shop's list, every page of it.
func (s *Server) ItemCount(tb testing.TB) int {
	tb.Helper()
	n, path := 0, "/api/v1/items?limit=100"
	for {
		r := s.Call(tb, "GET", path, "", nil)
		items, ok := r.Body["items"].([]any)
		if r.Status != 200 || !ok {
			tb.Fatalf("list items: %d %s", r.Status, r.Raw)
		}
		n += len(items)
		next, _ := r.Body["next_cursor"].(string)
		if next == "" {
			return n
		}
		path = "/api/v1/items?limit=100&cursor=" + url.QueryEscape(next)
	}
}
