package e2etest

import (
	"testing"
)

// BuyAfterEnd asks for a token and, should one still be issued, buys with
// it: after the end both steps must refuse.
func (s *Server) BuyAfterEnd(tb testing.TB, itemID int64, shopper string) Reply {
	tb.Helper()
	tok := MintToken(tb, shopper)
	pt := s.Call(tb, "GET", "/api/v1/items/"+Itoa(itemID)+"/purchase-token", tok, nil)
	if pt.Status != 200 {
		return pt
	}
	return s.Call(tb, "POST", "/api/v1/items/"+Itoa(itemID)+"/purchase", tok, nil, "X-Purchase-Token", pt.Str("token"))
}
