package e2etest

import (
	"fmt"
	"testing"
	"time"
)

// NewDraw creates a draw sale of one size whose entries open at opens.
func (s *Server) NewDraw(tb testing.TB, opens time.Time) int64 {
	tb.Helper()
	r := s.Call(tb, "POST", "/api/v1/admin/items", AdminToken, DrawBody(opens, Size("EU 42", 1)))
	if r.Status != 201 {
		tb.Fatalf("create draw: %d %s", r.Status, r.Raw)
	}
	return int64(Num(r.Body, "id"))
}

// EnterMany enters n shoppers named prefix-i in draw sale id.
func (s *Server) EnterMany(tb testing.TB, id int64, prefix string, n int) {
	tb.Helper()
	for i := range n {
		if r := s.Enter(tb, id, s.Login(tb, fmt.Sprintf("%s-%d", prefix, i)), 0); r.Status != 200 {
			tb.Fatalf("enter: %d %s", r.Status, r.Raw)
		}
	}
}
