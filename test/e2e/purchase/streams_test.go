package purchase

import (
	"context"
	"net/http"
	"testing"

	"github.com/seckill/seckill/test/e2e/e2etest"
)

// openStream opens an event stream and returns it once its headers are in;
// the test closes its body, or cleanup does.
func openStream(tb testing.TB, s *e2etest.Server, path, auth string) *http.Response {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", s.URL(path), nil)
	if err != nil {
		tb.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", "Bearer "+auth)
	}
	resp, err := streamClient.Do(req)
	if err != nil {
		cancel()
		tb.Fatalf("GET %s: %v", path, err)
	}
	tb.Cleanup(func() { cancel(); resp.Body.Close() })
	return resp
}

// streamClient has no overall timeout: streams stay open as long as a test
// needs them.
var streamClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
