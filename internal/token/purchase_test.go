package token

import (
	"testing"
	"time"
)

// TestPurchaseFormat pins the tokens to the bytes the server issued before
// they left the HTTP layer, so tokens in flight during an upgrade stay
// valid; each kind refuses the other's tokens.
func TestPurchaseFormat(t *testing.T) {
	const secret = "golden-secret-0123456789abcdef0123456789"
	exp := time.UnixMilli(1767225600123)
	tests := []struct {
		name  string
		kind  Purchase
		other Purchase
		want  string
	}{
		{"purchase", NewPurchase(secret, time.Minute), NewAdmission(secret, time.Minute),
			"AAABm3baqHs.M-azaIk4BYeleo-zK5RjiMaIbsgg7F8Is3xzzYxwqGY"},
		{"admission", NewAdmission(secret, time.Minute), NewPurchase(secret, time.Minute),
			"AAABm3baqHs.M1Mg3fWqwOnQVdb9mwRnlV3ZCfDI7i5Mn8BgFFR83MA"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.kind.IssueUntil("alice", 42, exp)
			if got != tt.want {
				t.Fatalf("IssueUntil = %q, want %q", got, tt.want)
			}
			before := exp.Add(-time.Millisecond)
			switch {
			case !tt.kind.Valid(got, "alice", 42, before):
				t.Error("refused before its expiry")
			case tt.kind.Valid(got, "alice", 42, exp):
				t.Error("accepted at its expiry")
			case tt.kind.Valid(got, "bob", 42, before), tt.kind.Valid(got, "alice", 43, before):
				t.Error("accepted for another shopper or sale")
			case tt.other.Valid(got, "alice", 42, before):
				t.Error("accepted as the other kind")
			}
		})
	}
}
