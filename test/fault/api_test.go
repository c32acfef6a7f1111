package fault

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// API calls one server's HTTP API.
type API struct {
	Base       string // http://host:port
	AdminToken string
	Client     *http.Client
}

// NewAPI returns a client of the server at base with a 10s timeout.
func NewAPI(base, adminToken string) *API {
	return &API{Base: base, AdminToken: adminToken, Client: &http.Client{Timeout: 10 * time.Second}}
}

// Reply is a decoded answer.
type Reply struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    string
}

// Code is the error code of an error answer ("" otherwise).
func (r Reply) Code() string {
	e, _ := r.Body["error"].(map[string]any)
	s, _ := e["code"].(string)
	return s
}

// Str is a string field of the body.
func (r Reply) Str(k string) string { s, _ := r.Body[k].(string); return s }

// Do sends a request; auth is a bearer token ("" for none), body is JSON-
// encoded unless nil, hdr are header name/value pairs. It returns an error
// only when no answer came.
func (a *API) Do(ctx context.Context, method, path, auth string, body any, hdr ...string) (Reply, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return Reply{}, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.Base+path, rd)
	if err != nil {
		return Reply{}, err
	}
	if auth != "" {
		req.Header.Set("Authorization", "Bearer "+auth)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := a.Client.Do(req)
	if err != nil {
		return Reply{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return Reply{}, err
	}
	r := Reply{Status: resp.StatusCode, Header: resp.Header, Raw: string(raw)}
	_ = json.Unmarshal(raw, &r.Body) // some answers (metrics) are not JSON
	return r, nil
}

// CreateSale creates a sale open from a minute ago for an hour, on the
// server's real clock, and returns its id.
func (a *API) CreateSale(tb testing.TB, stockTotal, perUserLimit int) int64 {
	tb.Helper()
	now := time.Now().UTC()
	r, err := a.Do(context.Background(), "POST", "/api/v1/admin/items", a.AdminToken, map[string]any{
		"name": "Fault-injection sneakers", "description": "A storm meets a crash.", "price_cents": 9900,
		"stock_total": stockTotal, "per_user_limit": perUserLimit,
		"starts_at": now.Add(-time.Minute).Format(time.RFC3339), "ends_at": now.Add(time.Hour).Format(time.RFC3339),
	})
	if err != nil || r.Status != http.StatusCreated {
		tb.Fatalf("create sale: %v %d %s", err, r.Status, r.Raw)
	}
	return int64(r.Body["id"].(float64))
}

// Stats are the admin stats of one sale.
type Stats struct {
	StockTotal      int      `json:"stock_total"`
	StockMySQL      int      `json:"stock_mysql"`
	StockRedis      *int64   `json:"stock_redis"`
	OrdersPending   int      `json:"orders_pending"`
	OrdersConfirmed int      `json:"orders_confirmed"`
	Sold            int      `json:"sold"`
	Consistent      bool     `json:"consistent"`
	Problems        []string `json:"problems"`
	Raw             string   `json:"-"`
}

// Stats reads GET /api/v1/admin/items/{id}/stats.
func (a *API) Stats(ctx context.Context, id int64) (Stats, error) {
	r, err := a.Do(ctx, "GET", "/api/v1/admin/items/"+strconv.FormatInt(id, 10)+"/stats", a.AdminToken, nil)
	if err != nil {
		return Stats{}, err
	}
	if r.Status != http.StatusOK {
		return Stats{}, fmt.Errorf("stats of item %d: %d %s", id, r.Status, r.Raw)
	}
	st := Stats{Raw: r.Raw}
	if err := json.Unmarshal([]byte(r.Raw), &st); err != nil {
		return Stats{}, fmt.Errorf("stats of item %d: %w", id, err)
	}
	return st, nil
}

// Metric reads one unlabelled sample from GET /metrics.
func (a *API) Metric(ctx context.Context, name string) (float64, error) {
	r, err := a.Do(ctx, "GET", "/metrics", "", nil)
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(strings.NewReader(r.Raw))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	return 0, fmt.Errorf("metric %s not in /metrics (%d)", name, r.Status)
}

// MintToken signs a shopper token as a shop's own login would.
func MintToken(secret, user string) (string, error) {
	return jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"sub": user, "exp": time.Now().Add(2 * time.Hour).Unix(),
	}).SignedString([]byte(secret))
}
