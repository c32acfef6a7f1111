package httpapi

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/seckill/seckill/internal/stock"
)

// TestQueueTooLongIsPaymentPending: a payment callback whose order Redis
// cannot find within its bound is told to retry (503 order_pending, as
// for an order still queued), not a bare 500.
func TestQueueTooLongIsPaymentPending(t *testing.T) {
	ans := lookup(fmt.Errorf("look for order x: %w", stock.ErrQueueTooLong))
	if ans != errPaymentPending || ans.Status != http.StatusServiceUnavailable || ans.Code != "order_pending" {
		t.Fatalf("answer %+v, want 503 order_pending", ans)
	}
}
