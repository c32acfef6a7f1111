package order_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/seckill/seckill/internal/keyspace"
)

// BenchmarkPersist writes orders to MySQL in batches of the size given,
// as the stream workers do; ns/op is per order, so sizes compare directly.
func BenchmarkPersist(b *testing.B) {
	for _, size := range []int{1, 50, 500} {
		b.Run("batch="+strconv.Itoa(size), func(b *testing.B) {
			orders, _, it, _ := setup(b, 10_000_000)
			ctx := context.Background()
			batch := make([]keyspace.Entry, 0, size)
			n := 0
			flush := func() {
				if _, err := orders.Persist(ctx, batch); err != nil {
					b.Fatal(err)
				}
				batch = batch[:0]
			}
			b.ResetTimer()
			for b.Loop() {
				n++
				id := "bench-" + strconv.Itoa(n)
				batch = append(batch, keyspace.Entry{StreamID: "1700000000000-" + strconv.Itoa(n), OrderID: id,
					ItemID: it.ID, UserID: "u" + strconv.Itoa(n), Quantity: 1, CreatedAt: t0})
				if len(batch) == size {
					flush()
				}
			}
			if len(batch) > 0 {
				flush()
			}
		})
	}
}
