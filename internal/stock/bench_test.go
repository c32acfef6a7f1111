package stock_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/stock"
)

// BenchmarkReserve compares one script call per purchase with batches of
// purchases per call, and with concurrent callers coalesced by Run. ns/op is
// per purchase throughout; the sale never sells out.
func BenchmarkReserve(b *testing.B) {
	at := t0.Add(time.Minute)
	var n atomic.Int64
	next := func() stock.Request {
		u := "u" + strconv.FormatInt(n.Add(1), 10)
		return stock.Request{ItemID: 1, UserID: u, Quantity: 1, OrderID: "o-" + u, Now: at}
	}
	for _, size := range []int{1, 16, 128} {
		b.Run("batch="+strconv.Itoa(size), func(b *testing.B) {
			s, _, _ := newStore(b)
			warm(b, s, 1, sale(1<<40, 1))
			reqs := make([]stock.Request, 0, size)
			out := make([]stock.Outcome, size)
			flush := func() {
				s.ReserveBatch(context.Background(), reqs, out[:len(reqs)])
				for _, o := range out[:len(reqs)] {
					if o.Err != nil {
						b.Fatal(o.Err)
					}
				}
				reqs = reqs[:0]
			}
			for b.Loop() {
				if reqs = append(reqs, next()); len(reqs) == size {
					flush()
				}
			}
			if len(reqs) > 0 {
				flush()
			}
		})
	}
	b.Run("coalesced,64-callers", func(b *testing.B) {
		s, _, _ := newStore(b)
		warm(b, s, 1, sale(1<<40, 1))
		var batched atomic.Bool
		s.OnBatch(func(int) { batched.Store(true) })
		runCoalesced(b, s, batched.Load)
		b.SetParallelism(32) // 64 goroutines on 2 cores, like concurrent requests
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := s.Reserve(context.Background(), next()); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
