package metrics_test

import (
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/metrics"
	"github.com/seckill/seckill/internal/testenv"
)

// TestScrapesAreCheapUnderAFlood: 200 concurrent scrapes cost the metrics'
// gathering (whose stream-lag gauge reads Redis) about one run per second,
// not one per request.
func TestScrapesAreCheapUnderAFlood(t *testing.T) {
	t.Parallel()
	var gathers atomic.Int64
	m := metrics.New(func() metrics.Lag { gathers.Add(1); return metrics.Lag{Pending: 7} })
	srv := httptest.NewServer(m.Handler(time.Second))
	defer srv.Close()
	took := testenv.Flood(t, srv.URL+"/metrics", 200, "seckill_stream_pending_orders 7")
	if n, most := gathers.Load(), int64(took/time.Second)+1; n < 1 || n > most {
		t.Errorf("200 scrapes in %v gathered the metrics %d times, want 1 to %d", took, n, most)
	}
}
