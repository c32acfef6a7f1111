package token

import (
	"testing"
	"time"
)

// BenchmarkVerifyToken is the sign-in check every purchase pays.
func BenchmarkVerifyToken(b *testing.B) {
	now := time.Now()
	tokens := NewSession("bench-secret-0123456789abcdef0123456789", time.Hour, func() time.Time { return now })
	tok, _, err := tokens.Issue("shopper-42")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := tokens.Verify(tok); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPurchaseToken is the purchase token check every purchase pays.
func BenchmarkPurchaseToken(b *testing.B) {
	p := NewPurchase("bench-secret-0123456789abcdef0123456789", time.Minute)
	now := time.Now()
	tok, _ := p.Issue("shopper-42", 7, now)
	for b.Loop() {
		if !p.Valid(tok, "shopper-42", 7, now) {
			b.Fatal("token refused")
		}
	}
}
