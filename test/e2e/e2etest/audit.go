package e2etest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"
	"time"
)

// AuditEntry is one entry of GET /api/v1/admin/audit.
type AuditEntry struct {
	ID        int64           `json:"id"`
	At        time.Time       `json:"at"`
	Actor     string          `json:"actor"`
	RequestID string          `json:"request_id"`
	Action    string          `json:"action"`
	ItemID    *int64          `json:"item_id"`
	Before    json.RawMessage `json:"before"`
	After     json.RawMessage `json:"after"`
}

type AuditPage struct {
	Entries    []AuditEntry `json:"entries"`
	NextCursor *string      `json:"next_cursor"`
}

// Audit reads one page of the audit log with the admin token.
func (s *Server) Audit(tb testing.TB, query string) AuditPage {
	tb.Helper()
	r := s.Call(tb, "GET", "/api/v1/admin/audit"+query, AdminToken, nil)
	var p AuditPage
	if r.Status != 200 || json.Unmarshal([]byte(r.Raw), &p) != nil || p.Entries == nil {
		tb.Fatalf("audit%s: %d %s", query, r.Status, r.Raw)
	}
	return p
}

// Fingerprint is the audit actor of a credential, worked out as the
// docs say: HMAC-SHA256 under the server's JWT secret.
func Fingerprint(kind, secret string) string {
	mac := hmac.New(sha256.New, []byte(JwtSecret))
	mac.Write([]byte(kind + "\x00" + secret))
	return kind + ":" + hex.EncodeToString(mac.Sum(nil))[:12]
}
