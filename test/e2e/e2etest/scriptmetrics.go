package e2etest

import (
	"regexp"
	"strconv"
	"testing"
)

// Series reads one series' value from the server's /metrics (0 if absent).
func Series(tb testing.TB, s *Server, name string) float64 {
	tb.Helper()
	page := s.Call(tb, "GET", "/metrics", "", nil).Raw
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`).FindStringSubmatch(page)
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}
