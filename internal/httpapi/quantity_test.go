package httpapi

import "testing"

// The shortcut for the usual purchase bodies must agree with the strict
// decoder: the same variant and quantity when it answers, and no answer for
// anything else.
func TestPlainPurchase(t *testing.T) {
	t.Parallel()
	type want struct {
		variant int64
		qty     int
	}
	no := want{-1, -1} // left to the decoder
	tests := map[string]want{
		`{"quantity":1}`: {0, 1}, `{"quantity":9999}`: {0, 9999}, `{"quantity":10000}`: no,
		`{"quantity":0}`: no, `{"quantity":01}`: no, `{"quantity":-1}`: no, `{"quantity":1.5}`: no,
		`{"quantity": 1}`: no, `{"Quantity":1}`: no, `{"quantity":"1"}`: no, `{"quantity":1}]`: no,
		`{"quantity":}`: no, ``: no, `{"quantity":1,"x":2}`: no,
		`{"variant_id":42,"quantity":2}`: {42, 2}, `{"variant_id":0,"quantity":1}`: no,
		`{"variant_id":042,"quantity":1}`: no, `{"variant_id":"4","quantity":1}`: no,
		`{"variant_id":4, "quantity":1}`: no, `{"variant_id":4,"quantity":1,"x":1}`: no,
		`{"variant_id":4}`: no, `{"quantity":1,"variant_id":4}`: no,
		`{"variant_id":1234567890123456789,"quantity":1}`: no,
		`{"variant_id":123456789012345678,"quantity":1}`:  {123456789012345678, 1},
	}
	for body, w := range tests {
		v, q, ok := plainPurchase([]byte(body))
		got := want{v, q}
		if !ok {
			got = no
		}
		if got != w {
			t.Errorf("plainPurchase(%s) = %+v, want %+v", body, got, w)
		}
	}
}
