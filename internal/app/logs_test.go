package app_test

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a log sink the server's goroutines may share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// TestSecretsNeverLogged: with every log line on (debug), signing in,
// signing in as admin, buying and failing auth leave no token or secret in
// the logs, and every request line carries a request id.
func TestSecretsNeverLogged(t *testing.T) {
	t.Parallel()
	var buf lockedBuffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s := startLogged(t, newClock(t0), log)
	id := s.sale(t, 5, 1, t0, t0.Add(time.Hour))
	shopper := s.login(t, "alice")
	s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", shopper, nil)
	s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", shopper+"tampered", nil)
	admin := s.call(t, "POST", "/api/v1/admin/session", "", `{"token":"`+adminToken+`"}`)
	s.call(t, "POST", "/api/v1/admin/session", "", `{"token":"`+adminToken+`-wrong"}`)
	cookie := strings.Split(admin.header.Get("Set-Cookie"), ";")[0]
	s.settle(t, id)

	logs := buf.String()
	if !strings.Contains(logs, `"request_id"`) || !strings.Contains(logs, `"route":"/api/v1/items/:id/purchase"`) {
		t.Fatalf("no structured request lines with ids in the logs:\n%s", logs)
	}
	secrets := map[string]string{"shopper token": shopper, "admin token": adminToken, "JWT secret": jwtSecret,
		"admin session": strings.TrimPrefix(cookie, "seckill_admin=")}
	for name, v := range secrets {
		if v != "" && strings.Contains(logs, v) {
			t.Errorf("the %s appears in the logs", name)
		}
	}
}
