package e2etest

import (
	"testing"
)

// BuyConfirmed buys for each user and waits until the orders are in MySQL.
func BuyConfirmed(t *testing.T, s *Server, id int64, users ...string) []string {
	t.Helper()
	ids := make([]string, len(users))
	for i, u := range users {
		r := s.Call(t, "POST", "/api/v1/items/"+Itoa(id)+"/purchase", MintToken(t, u), nil)
		Check(t, r, Want{202, "", ""})
		ids[i] = r.Str("order_id")
	}
	s.Settle(t, id)
	return ids
}
