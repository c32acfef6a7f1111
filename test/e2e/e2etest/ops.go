package e2etest

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/testenv"
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

// AuditPage is one page of GET /api/v1/admin/audit.
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
	mac := hmac.New(sha256.New, []byte(JWTSecret))
	mac.Write([]byte(kind + "\x00" + secret))
	return kind + ":" + hex.EncodeToString(mac.Sum(nil))[:12]
}

// SaleReport is GET /api/v1/admin/items/{id}/report, decoded.
type SaleReport struct {
	ItemID          int64          `json:"item_id"`
	Status          string         `json:"status"`
	StockTotal      int            `json:"stock_total"`
	Sold            int            `json:"sold"`
	OrdersByStatus  map[string]int `json:"orders_by_status"`
	Cancellations   map[string]int `json:"cancellations"`
	SellThrough     []CurvePoint   `json:"sell_through"`
	SoldOutAt       *time.Time     `json:"sold_out_at"`
	TimeToSellOutMs *int64         `json:"time_to_sell_out_ms"`
	Room            *RoomFigures   `json:"room"`
	Shed            int64          `json:"shed"`
	RateLimited     int64          `json:"rate_limited"`
}

// CurvePoint is one point of a report's sales curve.
type CurvePoint struct {
	T    time.Time `json:"t"`
	Sold int       `json:"sold"`
}

// RoomFigures is the waiting room's part of a report.
type RoomFigures struct {
	Joins, Admissions, Purchases, Abandoned int64
}

// Report is the post-sale report of sale id, read with the admin token.
func (s *Server) Report(tb testing.TB, id int64) SaleReport {
	tb.Helper()
	r := s.Call(tb, "GET", "/api/v1/admin/items/"+Itoa(id)+"/report", AdminToken, nil)
	if r.Status != 200 {
		tb.Fatalf("report: %d %s", r.Status, r.Raw)
	}
	var out SaleReport
	if err := json.Unmarshal([]byte(r.Raw), &out); err != nil {
		tb.Fatalf("report: %v in %s", err, r.Raw)
	}
	return out
}

// ReportOnceCounted waits until the servers' counters have reached MySQL
// (they flush every 2 s) and the report shows want's counted figures.
func (s *Server) ReportOnceCounted(tb testing.TB, id int64, counted func(SaleReport) bool) SaleReport {
	tb.Helper()
	var got SaleReport
	if !testenv.Eventually(15*time.Second, func() bool { got = s.Report(tb, id); return counted(got) }) {
		tb.Fatalf("counters never reached the report: %+v", got)
	}
	return got
}

// WaitReplicas waits until primary has n replicas, and with n > 0 until a
// write on it reaches them (after a resync a primary streams to a replica
// only once it has acknowledged).
func WaitReplicas(t testing.TB, primary *redis.Client, n int) {
	t.Helper()
	ctx := context.Background()
	testenv.WaitFor(t, 10*time.Second, func() bool {
		got, err := redisconn.Replicas(ctx, primary)
		if err != nil || got != n {
			return false
		}
		if n == 0 {
			return true
		}
		c := primary.Conn()
		defer c.Close()
		if err := c.Set(ctx, "probe", "1", 0).Err(); err != nil {
			return false
		}
		acked, err := c.Wait(ctx, n, 100*time.Millisecond).Result()
		return err == nil && acked >= int64(n)
	}, "primary never had %d replicas in sync", n)
}

// PrimaryWithReplica starts a private Redis primary and a replica of it,
// and returns once the primary counts the replica.
func PrimaryWithReplica(t *testing.T) (primaryAddr string, primary, replica *redis.Client) {
	t.Helper()
	primaryAddr = testenv.PrivateRedis(t, "--repl-diskless-sync-delay", "0")
	host, port, _ := strings.Cut(primaryAddr, ":")
	replica = redis.NewClient(&redis.Options{Addr: testenv.PrivateRedis(t, "--replicaof", host, port)})
	primary = redis.NewClient(&redis.Options{Addr: primaryAddr})
	t.Cleanup(func() { replica.Close(); primary.Close() })
	WaitReplicas(t, primary, 1)
	return primaryAddr, primary, replica
}
