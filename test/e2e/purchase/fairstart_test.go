package purchase

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestFairStart: the purchase endpoint needs a token that is only issued
// from the opening second of the server's clock, is bound to the shopper and
// the sale, and expires.
func TestFairStart(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0.Add(-time.Millisecond))
	s := e2etest.Start(t, clk, func(c *config.Config) { c.PurchaseTokens, c.PurchaseTTL = true, time.Minute })
	id := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	other := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	alice, bob := e2etest.MintToken(t, "alice"), e2etest.MintToken(t, "bob")
	tokenPath := "/api/v1/items/" + e2etest.Itoa(id) + "/purchase-token"
	buy := func(tok, ptok string) e2etest.Reply {
		return s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", tok, nil, "X-Purchase-Token", ptok)
	}

	e2etest.Check(t, s.Call(t, "GET", tokenPath, alice, nil), e2etest.Want{Status: 403, Code: "not_started"})
	e2etest.Check(t, buy(alice, ""), e2etest.Want{Status: 403, Code: "invalid_purchase_token"})
	e2etest.Check(t, s.Call(t, "GET", tokenPath, "", nil), e2etest.Want{Status: 401, Code: "unauthenticated"})

	clk.Set(e2etest.T0)
	r := s.Call(t, "GET", tokenPath, alice, nil)
	if r.Status != 200 || r.Str("token") == "" {
		t.Fatalf("token at the opening second: %d %s", r.Status, r.Raw)
	}
	good := r.Str("token")
	otherTok := s.Call(t, "GET", "/api/v1/items/"+e2etest.Itoa(other)+"/purchase-token", alice, nil).Str("token")
	exp, sig, _ := strings.Cut(good, ".")
	forged := exp + "." + base64.RawURLEncoding.EncodeToString(make([]byte, 32))
	longer := base64.RawURLEncoding.EncodeToString([]byte{0x7f, 0, 0, 0, 0, 0, 0, 0}) + "." + sig
	tests := []struct {
		name, shopper, ptok string
		want                e2etest.Want
	}{
		{"missing", alice, "", e2etest.Want{Status: 403, Code: "invalid_purchase_token"}},
		{"garbage", alice, "not.a-token", e2etest.Want{Status: 403, Code: "invalid_purchase_token"}},
		{"forged signature", alice, forged, e2etest.Want{Status: 403, Code: "invalid_purchase_token"}},
		{"expiry pushed out", alice, longer, e2etest.Want{Status: 403, Code: "invalid_purchase_token"}},
		{"another shopper's", bob, good, e2etest.Want{Status: 403, Code: "invalid_purchase_token"}},
		{"another sale's", alice, otherTok, e2etest.Want{Status: 403, Code: "invalid_purchase_token"}},
		{"valid", alice, good, e2etest.Want{Status: 202}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { e2etest.Check(t, buy(tc.shopper, tc.ptok), tc.want) })
	}
	t.Run("expired", func(t *testing.T) {
		bobTok := s.Call(t, "GET", tokenPath, bob, nil).Str("token")
		clk.Add(time.Minute)
		e2etest.Check(t, buy(bob, bobTok), e2etest.Want{Status: 403, Code: "invalid_purchase_token"})
	})
	if st := s.Settle(t, id); st.Body["sold"].(float64) != 1 {
		t.Fatalf("only the valid token may buy: %s", st.Raw)
	}
	clk.Set(e2etest.T0.Add(time.Hour))
	e2etest.Check(t, s.Call(t, "GET", tokenPath, alice, nil), e2etest.Want{Status: 403, Code: "ended"})
}
