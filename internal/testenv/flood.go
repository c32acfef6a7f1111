package testenv

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// Flood sends n GETs of url at once, fails the test for each answer that
// is not a 200 containing want, and returns how long they all took. It is
// how a test shows that a flood of unauthenticated requests (probes,
// scrapes) costs the stores one look, not n.
func Flood(tb testing.TB, url string, n int, want string) time.Duration {
	tb.Helper()
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	defer c.CloseIdleConnections()
	start := time.Now()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			resp, err := c.Get(url)
			if err != nil {
				tb.Error(err)
				return
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 200 || !strings.Contains(string(body), want) {
				tb.Errorf("GET %s: %d %s", url, resp.StatusCode, body)
			}
		})
	}
	wg.Wait()
	return time.Since(start)
}
