package metrics_test

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/metrics"
	"github.com/seckill/seckill/lua"
)

// Timing a script call costs the purchase path no allocation: one map read
// and one histogram observation.
func TestScriptHookTimesWithoutAllocating(t *testing.T) {
	m := metrics.New(func() metrics.Lag { return metrics.Lag{} })
	hook := m.RedisHook(slog.New(slog.NewTextHandler(io.Discard, nil)))
	sum := sha1.Sum([]byte(lua.Reserve))
	ctx := context.Background()
	cmd := redis.NewCmd(ctx, "evalsha", hex.EncodeToString(sum[:]), 0)
	process := hook.ProcessHook(func(context.Context, redis.Cmder) error { return nil })
	allocs := testing.AllocsPerRun(1000, func() { process(ctx, cmd) })
	if allocs != 0 {
		t.Errorf("a timed script call allocates %v times, want 0", allocs)
	}
	rec := httptest.NewRecorder()
	m.Handler(0).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if want := `seckill_redis_script_duration_seconds_count{script="reserve"} 1001`; !strings.Contains(rec.Body.String(), want) {
		t.Errorf("metrics lack %s", want)
	}
}
