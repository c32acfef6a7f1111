package ratelimit_test

import (
	"testing"

	"github.com/seckill/seckill/internal/ratelimit"
)

func TestClientKey(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"192.0.2.7":                     "192.0.2.7",
		"2001:db8:1:2:aaaa::1":          "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff:ffff:ffff:1": "2001:db8:1:2::/64", // same /64, same limit
		"::ffff:192.0.2.7":              "::ffff:192.0.2.7",
		"not an ip":                     "not an ip",
	}
	for in, want := range tests {
		if got := ratelimit.ClientKey(in); got != want {
			t.Errorf("ClientKey(%q) = %q, want %q", in, got, want)
		}
	}
}
