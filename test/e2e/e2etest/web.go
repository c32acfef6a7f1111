package e2etest

import (
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
)

// LiveClock runs in real time, offset from the machine's. An offset of an
// hour puts the server's clock an hour ahead of the browser's: a page that
// counted down on the browser's clock would be an hour off.
type LiveClock struct{ Offset time.Duration }

func (c *LiveClock) Now() time.Time { return time.Now().Add(c.Offset) }

// StartLive starts a server for the browser tests, with purchase tokens on
// as in production: the pages must fetch them by themselves.
func StartLive(tb testing.TB, c *LiveClock) *Server {
	tb.Helper()
	return Start(tb, c, func(cfg *config.Config) { cfg.PurchaseTokens = true })
}

// ItemByName finds a sale's id through the public list.
func (s *Server) ItemByName(tb testing.TB, name string) int64 {
	tb.Helper()
	for _, it := range s.Call(tb, "GET", "/api/v1/items", "", nil).Body["items"].([]any) {
		if m := it.(map[string]any); m["name"] == name {
			return int64(m["id"].(float64))
		}
	}
	tb.Fatalf("no sale named %q", name)
	return 0
}
