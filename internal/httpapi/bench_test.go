package httpapi

import (
	"encoding/json"
	"strconv"
	"testing"
)

// BenchmarkPurchaseJSON is the 202 body every reservation answers with.
func BenchmarkPurchaseJSON(b *testing.B) {
	body := purchaseJSON{OrderID: "01JDQ0Q6Z3W8Y5N2X4V7T9R1S3", ItemID: 7, UserID: "shopper-42", Quantity: 1, Status: "pending"}
	for b.Loop() {
		if _, err := json.Marshal(body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPurchaseBody compares reading the usual purchase body by the
// shortcut with the strict decoder every other body goes through.
func BenchmarkPurchaseBody(b *testing.B) {
	raw := []byte(`{"variant_id":7,"quantity":1}`)
	b.Run("shortcut", func(b *testing.B) {
		for b.Loop() {
			if _, q, ok := plainPurchase(raw); !ok || q != 1 {
				b.Fatal("shortcut failed: " + strconv.Itoa(q))
			}
		}
	})
	b.Run("strict", func(b *testing.B) {
		for b.Loop() {
			var body struct {
				VariantID *int64 `json:"variant_id"`
				Quantity  *int   `json:"quantity"`
			}
			if err := decodeBody(raw, &body, true); err != nil {
				b.Fatal(err)
			}
		}
	})
}
