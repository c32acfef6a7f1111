package httpapi

import (
	"bytes"

	"github.com/gin-gonic/gin"
)

// purchaseBody reads the body's variant_id (0 when absent: the sale's only
// variant) and quantity (1 when absent, or when the body is empty).
func purchaseBody(c *gin.Context) (variantID int64, qty int, err error) {
	raw, err := readBody(c)
	if err != nil {
		return 0, 0, err
	}
	if variantID, qty, ok := plainPurchase(raw); ok {
		return variantID, qty, nil
	}
	var body struct {
		VariantID *int64 `json:"variant_id"`
		Quantity  *int   `json:"quantity"`
	}
	if err := decodeBody(raw, &body, true); err != nil {
		if ae, ok := err.(*Error); ok && ae.Field == "quantity" && ae.wrongType {
			return 0, 0, errInvalidQuantity
		}
		return 0, 0, err
	}
	qty = 1
	if body.Quantity != nil {
		qty = *body.Quantity
	}
	if body.VariantID != nil {
		if *body.VariantID <= 0 {
			return 0, 0, errVariantNotFound
		}
		variantID = *body.VariantID
	}
	return variantID, qty, nil
}

// plainPurchase reads the bodies the shop pages send, {"quantity":N} and
// {"variant_id":V,"quantity":N} with no spaces, without the strict JSON
// decoder; any other body (spaces, other keys or order, anything odd) goes
// to the decoder.
func plainPurchase(b []byte) (variantID int64, qty int, ok bool) {
	const variantHead, qtyHead = `{"variant_id":`, `"quantity":`
	rest := b
	if len(rest) == 0 || rest[0] != '{' {
		return 0, 0, false
	}
	if bytes.HasPrefix(rest, []byte(variantHead)) {
		v, n := leadingNumber(rest[len(variantHead):], 18)
		if n == 0 || len(rest) < len(variantHead)+n+1 || rest[len(variantHead)+n] != ',' {
			return 0, 0, false
		}
		variantID, rest = v, rest[len(variantHead)+n+1:]
	} else {
		rest = rest[1:]
	}
	if !bytes.HasPrefix(rest, []byte(qtyHead)) {
		return 0, 0, false
	}
	q, n := leadingNumber(rest[len(qtyHead):], 4)
	if n == 0 || len(rest) != len(qtyHead)+n+1 || rest[len(rest)-1] != '}' {
		return 0, 0, false
	}
	return variantID, int(q), true
}

// leadingNumber reads a positive whole number of at most digits digits, with
// no leading zero, from the start of b; n is how many bytes it took (0: none).
func leadingNumber(b []byte, digits int) (v int64, n int) {
	for n < len(b) && n <= digits && b[n] >= '0' && b[n] <= '9' {
		v = v*10 + int64(b[n]-'0')
		n++
	}
	if n == 0 || n > digits || b[0] == '0' {
		return 0, 0
	}
	return v, n
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
