package e2etest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/seckill/seckill/internal/config"
)

// Want is one expected answer.
type Want struct {
	Status int
	Code   string // error code, "" for success
	Field  string // error field, if any
}

// Check fails t unless r has w's status, error code and field.
func Check(t *testing.T, r Reply, w Want) {
	t.Helper()
	if r.Status != w.Status || r.ErrCode() != w.Code {
		t.Fatalf("got %d %q (%s), want %d %q", r.Status, r.ErrCode(), r.Raw, w.Status, w.Code)
	}
	if w.Field != "" {
		if f, _ := r.Body["error"].(map[string]any)["field"].(string); f != w.Field {
			t.Fatalf("error field = %q, want %q (%s)", f, w.Field, r.Raw)
		}
	}
	if w.Code != "" && !strings.Contains(r.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("error answered as %q, want JSON", r.Header.Get("Content-Type"))
	}
}

// Metric is the count of purchases s answered with outcome, read from
// its /metrics.
func Metric(tb testing.TB, s *Server, outcome string) int {
	tb.Helper()
	m := regexp.MustCompile(`seckill_purchases_total\{outcome="` + outcome + `"\} (\d+)`).FindStringSubmatch(s.Call(tb, "GET", "/metrics", "", nil).Raw)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// Series reads one series' value from the server's /metrics (0 if absent).
func Series(tb testing.TB, s *Server, name string) float64 {
	tb.Helper()
	page := s.Call(tb, "GET", "/metrics", "", nil).Raw
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`).FindStringSubmatch(page)
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// LockedBuffer is a log sink the server's goroutines may share.
type LockedBuffer struct {
	Mu sync.Mutex
	B  bytes.Buffer
}

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.Mu.Lock()
	defer l.Mu.Unlock()
	return l.B.Write(p)
}

func (l *LockedBuffer) String() string { l.Mu.Lock(); defer l.Mu.Unlock(); return l.B.String() }

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
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL("/api/v1/admin/events"), nil)
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

// OrderEvent is one event of an order's stream (or any other).
type OrderEvent struct {
	Name string
	Body map[string]any
}

// Follow opens an event stream, with token if not "", and hands out its
// events until ctx ends.
func Follow(tb testing.TB, ctx context.Context, s *Server, path, token string) <-chan OrderEvent {
	tb.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL(path), nil)
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

// RedisStock is the sale's stock in Redis by the admin stats.
func (s *Server) RedisStock(tb testing.TB, id int64) int64 {
	tb.Helper()
	r := s.Stats(tb, id)
	n, ok := r.Body["stock_redis"].(float64)
	if r.Status != 200 || !ok {
		tb.Fatalf("stats of sale %d: %d %s", id, r.Status, r.Raw)
	}
	return int64(n)
}

// ItemCount is the number of sales in the shop's list, every page of it.
func (s *Server) ItemCount(tb testing.TB) int {
	tb.Helper()
	n, path := 0, "/api/v1/items?limit=100"
	for {
		r := s.Call(tb, "GET", path, "", nil)
		items, ok := r.Body["items"].([]any)
		if r.Status != 200 || !ok {
			tb.Fatalf("list items: %d %s", r.Status, r.Raw)
		}
		n += len(items)
		next, _ := r.Body["next_cursor"].(string)
		if next == "" {
			return n
		}
		path = "/api/v1/items?limit=100&cursor=" + url.QueryEscape(next)
	}
}

// OrderIDs reads the sale's orders straight from MySQL: order id -> user.
func (s *Server) OrderIDs(tb testing.TB, itemID int64) map[string]string {
	tb.Helper()
	var rows []struct{ ID, UserID string }
	if err := s.Db.Gorm.Raw("SELECT id, user_id FROM orders WHERE item_id = ?", itemID).Scan(&rows).Error; err != nil {
		tb.Fatal(err)
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		if _, dup := out[r.ID]; dup {
			tb.Errorf("order %s stored twice", r.ID)
		}
		out[r.ID] = r.UserID
	}
	return out
}

// MintToken signs a shopper token as a shop's own login would.
func MintToken(tb testing.TB, user string) string {
	tb.Helper()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		// Valid both for servers on the test clock t0 and on the real clock.
		"sub": user, "exp": time.Now().Add(48 * time.Hour).Unix(),
	}).SignedString([]byte(JWTSecret))
	if err != nil {
		tb.Fatal(err)
	}
	return tok
}

// Summary spells a tally of outcomes in a stable order for a failure
// message.
func Summary(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

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
