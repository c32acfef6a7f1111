package order_test

import (
	"context"
	"strconv"
	"sync"
	"testing"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/order"
)

// TestConcurrentCancelsOfOneSale: forty shoppers cancel their orders of one
// sale at the same moment. Every cancel succeeds, none is chosen as a MySQL
// deadlock victim, and all the stock is back, in the sale's row and its
// variant's.
func TestConcurrentCancelsOfOneSale(t *testing.T) {
	t.Parallel()
	const n = 40
	orders, items, it, _ := setup(t, n)
	ctx := context.Background()
	batch := make([]keyspace.Entry, n)
	for i := range batch {
		batch[i] = keyspace.Entry{StreamID: "1700000000000-" + strconv.Itoa(i), OrderID: "O" + strconv.Itoa(i),
			ItemID: it.ID, UserID: "u" + strconv.Itoa(i), Quantity: 1, CreatedAt: t0}
	}
	if res, err := orders.Persist(ctx, batch); err != nil || len(res.Inserted) != n {
		t.Fatalf("persist = %+v, %v", res, err)
	}
	var wg sync.WaitGroup
	for _, e := range batch {
		wg.Go(func() {
			if _, err := orders.CancelInMySQL(ctx, e.OrderID, e.UserID, order.ReasonShopper); err != nil {
				t.Errorf("cancel %s: %v", e.OrderID, err)
			}
		})
	}
	wg.Wait()
	got, err := items.Get(ctx, it.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Stock != n || got.Variants[0].Stock != n {
		t.Fatalf("stock after %d cancels: sale %d, variant %d; want %d", n, got.Stock, got.Variants[0].Stock, n)
	}
}
