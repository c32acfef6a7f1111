package token_test

import (
	"testing"
	"time"

	"github.com/seckill/seckill/internal/token"
)

func TestAdminIsToken(t *testing.T) {
	a := token.NewAdmin("the-jwt-secret-0123456789abcdef", "the-admin-token", time.Now, nil)
	for _, tc := range []struct {
		tok  string
		want bool
	}{{"the-admin-token", true}, {"the-admin-toke", false}, {"the-admin-token ", false}, {"", false}} {
		if got := a.IsToken(tc.tok); got != tc.want {
			t.Errorf("IsToken(%q) = %v, want %v", tc.tok, got, tc.want)
		}
	}
	if token.NewAdmin("s", "", time.Now, nil).IsToken("") {
		t.Error("an empty admin token lets an empty bearer in")
	}
}
