package e2etest

import (
	"testing"
	"time"

	"github.com/seckill/seckill/internal/testenv"
)

// SellsAgainOn buys (body, nil for the default) as user on s until it works, failing on anything but
// sold_out meanwhile or after 2 s.
func SellsAgainOn(t *testing.T, s *Server, path string, body any, user, after string) {
	t.Helper()
	since := time.Now()
	var r Reply
	if !testenv.Eventually(2*time.Second, func() bool {
		r = s.Call(t, "POST", path, MintToken(t, user), body)
		if r.Status != 202 && r.Status != 410 {
			t.Fatalf("server b after %s: %d %s", after, r.Status, r.Raw)
		}
		return r.Status == 202
	}) {
		t.Fatalf("server b after %s, for 2s: %d %s", after, r.Status, r.Raw)
	}
	t.Logf("server b sold the returned unit %v after %s", time.Since(since), after)
}
