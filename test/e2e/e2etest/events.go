package e2etest

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Snapshot is one dashboard event as the browser receives it.
type Snapshot struct {
	At   time.Time
	Rows []struct {
		ItemID     int64 `json:"item_id"`
		Sold       int   `json:"sold"`
		Consistent bool  `json:"consistent"`
	} `json:"rows"`
	ComputeMS float64 `json:"compute_ms"`
	AuditHead int64   `json:"audit_head"`
}

// Watch subscribes to the admin event stream until ctx ends.
func Watch(tb testing.TB, ctx context.Context, s *Server) <-chan Snapshot {
	tb.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.Url("/api/v1/admin/events"), nil)
	req.Header.Set("Authorization", "Bearer "+AdminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		tb.Fatalf("event stream: %v %v", resp, err)
	}
	out := make(chan Snapshot, 1000)
	go func() {
		defer resp.Body.Close()
		defer close(out)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var snap Snapshot
			if json.Unmarshal([]byte(data), &snap) == nil {
				snap.At = time.Now()
				out <- snap
			}
		}
	}()
	return out
}
