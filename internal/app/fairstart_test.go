package app_test

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
)

// TestFairStart: the purchase endpoint needs a token that is only issued
// from the opening second of the server's clock, is bound to the shopper and
// the sale, and expires.
func TestFairStart(t *testing.T) {
	t.Parallel()
	clk := newClock(t0.Add(-time.Millisecond))
	s := start(t, clk, func(c *config.Config) { c.PurchaseTokens, c.PurchaseTTL = true, time.Minute })
	id := s.sale(t, 5, 1, t0, t0.Add(time.Hour))
	other := s.sale(t, 5, 1, t0, t0.Add(time.Hour))
	alice, bob := mintToken(t, "alice"), mintToken(t, "bob")
	tokenPath := "/api/v1/items/" + itoa(id) + "/purchase-token"
	buy := func(tok, ptok string) reply {
		return s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", tok, nil, "X-Purchase-Token", ptok)
	}

	check(t, s.call(t, "GET", tokenPath, alice, nil), want{403, "not_started", ""})
	check(t, buy(alice, ""), want{403, "invalid_purchase_token", ""})
	check(t, s.call(t, "GET", tokenPath, "", nil), want{401, "unauthenticated", ""})

	clk.Set(t0)
	r := s.call(t, "GET", tokenPath, alice, nil)
	if r.status != 200 || r.str("token") == "" {
		t.Fatalf("token at the opening second: %d %s", r.status, r.raw)
	}
	good := r.str("token")
	otherTok := s.call(t, "GET", "/api/v1/items/"+itoa(other)+"/purchase-token", alice, nil).str("token")
	exp, sig, _ := strings.Cut(good, ".")
	forged := exp + "." + base64.RawURLEncoding.EncodeToString(make([]byte, 32))
	longer := base64.RawURLEncoding.EncodeToString([]byte{0x7f, 0, 0, 0, 0, 0, 0, 0}) + "." + sig
	tests := []struct {
		name, shopper, ptok string
		want                want
	}{
		{"missing", alice, "", want{403, "invalid_purchase_token", ""}},
		{"garbage", alice, "not.a-token", want{403, "invalid_purchase_token", ""}},
		{"forged signature", alice, forged, want{403, "invalid_purchase_token", ""}},
		{"expiry pushed out", alice, longer, want{403, "invalid_purchase_token", ""}},
		{"another shopper's", bob, good, want{403, "invalid_purchase_token", ""}},
		{"another sale's", alice, otherTok, want{403, "invalid_purchase_token", ""}},
		{"valid", alice, good, want{202, "", ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { check(t, buy(tc.shopper, tc.ptok), tc.want) })
	}
	t.Run("expired", func(t *testing.T) {
		bobTok := s.call(t, "GET", tokenPath, bob, nil).str("token")
		clk.Add(time.Minute)
		check(t, buy(bob, bobTok), want{403, "invalid_purchase_token", ""})
	})
	if st := s.settle(t, id); st.body["sold"].(float64) != 1 {
		t.Fatalf("only the valid token may buy: %s", st.raw)
	}
	clk.Set(t0.Add(time.Hour))
	check(t, s.call(t, "GET", tokenPath, alice, nil), want{403, "ended", ""})
}
