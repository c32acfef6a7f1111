package httpapi

import (
	"github.com/gin-gonic/gin"
)

// purchaseQuantity reads the body's quantity, 1 if the body is empty.
func purchaseQuantity(c *gin.Context) (int, error) {
	raw, err := readBody(c)
	if err != nil {
		return 0, err
	}
	if qty, ok := plainQuantity(raw); ok {
		return qty, nil
	}
	var body struct {
		Quantity *int `json:"quantity"`
	}
	if err := decodeBody(raw, &body, true); err != nil {
		if ae, ok := err.(*Error); ok && ae.Field == "quantity" && ae.wrongType {
			return 0, errInvalidQuantity
		}
		return 0, err
	}
	if body.Quantity == nil {
		return 1, nil
	}
	return *body.Quantity, nil
}

// plainQuantity reads the body every shop page sends, {"quantity":N} with
// N of 1 to 4 digits and no spaces, without the strict JSON decoder; any
// other body (spaces, other keys, anything odd) goes to the decoder.
func plainQuantity(b []byte) (int, bool) {
	const head = `{"quantity":`
	if len(b) < len(head)+2 || len(b) > len(head)+5 || string(b[:len(head)]) != head || b[len(b)-1] != '}' {
		return 0, false
	}
	digits := b[len(head) : len(b)-1]
	if digits[0] == '0' {
		return 0, false
	}
	n := 0
	for _, d := range digits {
		if d < '0' || d > '9' {
			return 0, false
		}
		n = n*10 + int(d-'0')
	}
	return n, true
}

func validIdempotencyKey(k string) bool {
	if len(k) > 128 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return false
		}
	}
	return true
}
