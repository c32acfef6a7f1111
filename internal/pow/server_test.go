package pow

import "testing"

func TestNetworkKey(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"192.0.2.7":                     "192.0.2.0/24",
		"192.0.2.250":                   "192.0.2.0/24", // a neighbour: the same network
		"192.0.3.7":                     "192.0.3.0/24",
		"::ffff:192.0.2.7":              "192.0.2.0/24",
		"2001:db8:1:2:ffff:ffff:ffff:1": "2001:db8:1:2::/64",
		"not an ip":                     "not an ip",
	}
	for in, want := range tests {
		if got := networkKey(in); got != want {
			t.Errorf("networkKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPowNetwork(t *testing.T) {
	t.Parallel()
	tests := map[string]Network{
		"192.0.2.7":                     {Narrow: "192.0.2.0/24"},
		"::ffff:192.0.2.7":              {Narrow: "192.0.2.0/24"},
		"2001:db8:1:2:ffff:ffff:ffff:1": {Narrow: "2001:db8:1:2::/64", Wide: "2001:db8:1::/48"},
		"2001:db8:1:ffff::1":            {Narrow: "2001:db8:1:ffff::/64", Wide: "2001:db8:1::/48"}, // another /64, the same /48
		"not an ip":                     {Narrow: "not an ip"},
	}
	for in, want := range tests {
		if got := NetworkOf(in); got != want {
			t.Errorf("NetworkOf(%q) = %+v, want %+v", in, got, want)
		}
	}
}
