package e2etest

import (
	"regexp"
	"strconv"
	"testing"
)

func Metric(tb testing.TB, s *Server, outcome string) int {
	tb.Helper()
	m := regexp.MustCompile(`seckill_purchases_total\{outcome="` + outcome + `"\} (\d+)`).FindStringSubmatch(s.Call(tb, "GET", "/metrics", "", nil).Raw)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
