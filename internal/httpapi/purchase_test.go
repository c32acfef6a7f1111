package httpapi

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"testing"

	"github.com/seckill/seckill/internal/front"
	"github.com/seckill/seckill/internal/stock"
)

// TestFrontAnswers: what the front door answers itself is answered as the
// handler answered it before the door had a package of its own: the busy
// answer a 503 with Retry-After and not logged as a failure, a mark's
// sold-out naming the variants left, a paused mark 423.
func TestFrontAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		err        error
		status     int
		code       string
		retryAfter string
		variants   int // named as still available, in a sold_out answer
	}{
		{"shed", front.ErrBusy, http.StatusServiceUnavailable, "unavailable", "1", 0},
		{"sold out", stock.ErrSoldOut, http.StatusGone, "sold_out", "", 0},
		{"variant sold out", &stock.SoldOutError{Available: []int64{2, 3}}, http.StatusGone, "sold_out", "", 2},
		{"paused", stock.ErrPaused, http.StatusLocked, "sale_paused", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var logs bytes.Buffer
			rep := replier{log: slog.New(slog.NewJSONHandler(&logs, nil))}
			c, rec := fuzzContext(nil)
			gated := &front.GatedError{Err: tt.err}
			rep.fail(c, gated)
			if rec.Code != tt.status || rec.Header().Get("Retry-After") != tt.retryAfter {
				t.Fatalf("answered %d Retry-After %q, want %d %q", rec.Code, rec.Header().Get("Retry-After"), tt.status, tt.retryAfter)
			}
			var body struct{ Error Error }
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Error.Code != tt.code {
				t.Fatalf("body %s (%v), want code %s", rec.Body, err, tt.code)
			}
			if av := body.Error.AvailableVariants; tt.code == "sold_out" && (av == nil || len(*av) != tt.variants) {
				t.Fatalf("body %s, want %d variants named as left", rec.Body, tt.variants)
			}
			if logs.Len() > 0 {
				t.Fatalf("a deliberate answer was logged: %s", logs.String())
			}
		})
	}
}
