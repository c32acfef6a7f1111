package httpapi_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/httpapi"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/web"
)

// TestProbesAreCheapUnderAFlood: 200 concurrent /readyz probes against a
// running server cost the readiness checks about one run per second, not one
// per request. (The metrics' gathering has the same test in internal/metrics.)
func TestProbesAreCheapUnderAFlood(t *testing.T) {
	t.Parallel()
	var checks atomic.Int64
	srv := httptest.NewServer(httpapi.New(httpapi.Deps{
		Web: web.FS, Clock: httpapi.Clock{Now: time.Now},
		Ops: httpapi.Ops{Ready: func(ctx context.Context) map[string]string {
			checks.Add(1)
			return map[string]string{}
		}},
		Settings: httpapi.Settings{AdminToken: "the-admin-token-0123456789", JWTSecret: strings.Repeat("s", 32), SessionTTL: time.Hour, OpsCache: time.Second},
	}))
	defer srv.Close()
	took := testenv.Flood(t, srv.URL+"/readyz", 200, `"ready"`)
	if n, most := checks.Load(), int64(took/time.Second)+1; n < 1 || n > most {
		t.Errorf("200 probes in %v ran the readiness checks %d times, want 1 to %d", took, n, most)
	}
}
