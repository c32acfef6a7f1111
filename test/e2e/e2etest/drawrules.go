package e2etest

import (
	"testing"
)

func (s *Server) Entry(t *testing.T, id int64, tok string) Reply {
	t.Helper()
	return s.Call(t, "GET", "/api/v1/items/"+Itoa(id)+"/entry", tok, nil)
}
