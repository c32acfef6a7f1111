package e2etest

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// OrderEvent is one event of an order's stream (or any other).
type OrderEvent struct {
	Name string
	Body map[string]any
}

// Follow opens an event stream, with token if not "", and hands out its
// events until ctx ends.
func Follow(tb testing.TB, ctx context.Context, s *Server, path, token string) <-chan OrderEvent {
	tb.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.Url(path), nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		tb.Fatalf("event stream %s: %v %v", path, resp, err)
	}
	out := make(chan OrderEvent, 16)
	go func() {
		defer resp.Body.Close()
		defer close(out)
		sc, name := bufio.NewScanner(resp.Body), ""
		for sc.Scan() {
			line := sc.Text()
			if n, ok := strings.CutPrefix(line, "event: "); ok {
				name = n
			} else if data, ok := strings.CutPrefix(line, "data: "); ok {
				ev := OrderEvent{Name: name}
				if json.Unmarshal([]byte(data), &ev.Body) == nil {
					out <- ev
				}
			}
		}
	}()
	return out
}
