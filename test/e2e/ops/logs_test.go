package ops

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestSecretsNeverLogged: with every log line on (debug), signing in,
// signing in as admin, buying and failing auth leave no token or secret in
// the logs, and every request line carries a request id.
func TestSecretsNeverLogged(t *testing.T) {
	t.Parallel()
	var buf e2etest.LockedBuffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s := e2etest.StartLogged(t, e2etest.NewClock(e2etest.T0), log)
	id := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	shopper := s.Login(t, "alice")
	s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", shopper, nil)
	s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", shopper+"tampered", nil)
	admin := s.Call(t, "POST", "/api/v1/admin/session", "", `{"token":"`+e2etest.AdminToken+`"}`)
	s.Call(t, "POST", "/api/v1/admin/session", "", `{"token":"`+e2etest.AdminToken+`-wrong"}`)
	cookie := strings.Split(admin.Header.Get("Set-Cookie"), ";")[0]
	s.Settle(t, id)

	logs := buf.String()
	if !strings.Contains(logs, `"request_id"`) || !strings.Contains(logs, `"route":"/api/v1/items/:id/purchase"`) {
		t.Fatalf("no structured request lines with ids in the logs:\n%s", logs)
	}
	secrets := map[string]string{"shopper token": shopper, "admin token": e2etest.AdminToken, "JWT secret": e2etest.JWTSecret,
		"admin session": strings.TrimPrefix(cookie, "seckill_admin=")}
	for name, v := range secrets {
		if v != "" && strings.Contains(logs, v) {
			t.Errorf("the %s appears in the logs", name)
		}
	}
}
