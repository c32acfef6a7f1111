package httpapi_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/httpapi"
	"github.com/seckill/seckill/web"
)

// TestProbesAndScrapesAreCheapUnderAFlood: 200 concurrent /readyz probes
// and 200 concurrent /metrics scrapes against a running server cost the
// readiness checks, and the metrics' gathering (whose stream-lag gauge reads
// Redis), about one run per second each, not one per request.
func TestProbesAndScrapesAreCheapUnderAFlood(t *testing.T) {
	t.Parallel()
	var checks, gathers atomic.Int64
	srv := httptest.NewServer(httpapi.New(httpapi.Deps{
		Metrics: httpapi.NewMetrics(func() httpapi.Lag { gathers.Add(1); return httpapi.Lag{Pending: 7} }), Web: web.FS, Now: time.Now,
		Tokens: httpapi.NewTokens(strings.Repeat("s", 32), time.Hour, time.Now),
		Ready: func(ctx context.Context) map[string]string {
			checks.Add(1)
			return map[string]string{}
		},
		Settings: httpapi.Settings{AdminToken: "the-admin-token-0123456789", OpsCache: time.Second},
	}))
	defer srv.Close()
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	flood := func(path string, want string) time.Duration {
		start := time.Now()
		var wg sync.WaitGroup
		for range 200 {
			wg.Go(func() {
				resp, err := c.Get(srv.URL + path)
				if err != nil {
					t.Error(err)
					return
				}
				defer resp.Body.Close()
				body, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != 200 || !strings.Contains(string(body), want) {
					t.Errorf("GET %s: %d %s", path, resp.StatusCode, body)
				}
			})
		}
		wg.Wait()
		return time.Since(start)
	}
	took := flood("/readyz", `"ready"`)
	if n, most := checks.Load(), int64(took/time.Second)+1; n < 1 || n > most {
		t.Errorf("200 probes in %v ran the readiness checks %d times, want 1 to %d", took, n, most)
	}
	took = flood("/metrics", "seckill_stream_pending_orders 7")
	if n, most := gathers.Load(), int64(took/time.Second)+1; n < 1 || n > most {
		t.Errorf("200 scrapes in %v gathered the metrics %d times, want 1 to %d", took, n, most)
	}
}
