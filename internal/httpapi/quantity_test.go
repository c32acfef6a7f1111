package httpapi

import "testing"

// The shortcut for the usual purchase body must agree with the strict
// decoder: same quantity when it answers, and no answer for anything else.
func TestPlainQuantity(t *testing.T) {
	t.Parallel()
	tests := map[string]int{ // -1: left to the decoder
		`{"quantity":1}`: 1, `{"quantity":9999}`: 9999, `{"quantity":10000}`: -1,
		`{"quantity":0}`: -1, `{"quantity":01}`: -1, `{"quantity":-1}`: -1, `{"quantity":1.5}`: -1,
		`{"quantity": 1}`: -1, `{"Quantity":1}`: -1, `{"quantity":"1"}`: -1, `{"quantity":1}]`: -1,
		`{"quantity":}`: -1, ``: -1, `{"quantity":1,"x":2}`: -1,
	}
	for body, want := range tests {
		got, ok := plainQuantity([]byte(body))
		if !ok {
			got = -1
		}
		if got != want {
			t.Errorf("plainQuantity(%s) = %d, want %d", body, got, want)
		}
	}
}
