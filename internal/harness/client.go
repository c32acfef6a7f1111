package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Client calls one seckill server's HTTP API as a shopper, an admin or a
// scraper would. The benchmark and the fault tests each had one; this is
// the part both need.
type Client struct {
	Base       string // http://host:port
	AdminToken string
	HTTP       *http.Client
}

// NewClient returns a client of the server at base with a 10 s timeout.
func NewClient(base, adminToken string) *Client {
	return &Client{Base: base, AdminToken: adminToken, HTTP: &http.Client{Timeout: 10 * time.Second}}
}

// Reply is one answer: its status, headers, raw body and, when the body is
// a JSON object, that object.
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

// Str is a string field of the body ("" if absent).
func (r Reply) Str(k string) string { s, _ := r.Body[k].(string); return s }

// Do sends a request; auth is a bearer token ("" for none), body is
// JSON-encoded unless nil, hdr are header name/value pairs. It returns an
// error only when no answer came (or body does not encode).
func (c *Client) Do(ctx context.Context, method, path, auth string, body any, hdr ...string) (Reply, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return Reply{}, fmt.Errorf("%s %s: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, rd)
	if err != nil {
		return Reply{}, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if auth != "" {
		req.Header.Set("Authorization", "Bearer "+auth)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return Reply{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return Reply{}, fmt.Errorf("%s %s: read answer: %w", method, path, err)
	}
	r := Reply{Status: resp.StatusCode, Header: resp.Header, Raw: string(raw)}
	_ = json.Unmarshal(raw, &r.Body) // some answers (metrics) are not JSON
	return r, nil
}

// CreateSale creates a sale through the admin API and returns its id. The
// sale opened a minute ago by this machine's clock, so the reserve script,
// which refuses a purchase before the opening by the server's clock, takes
// the first one; it ends six hours on, after any run.
func (c *Client) CreateSale(ctx context.Context, name string, stock, perUserLimit int) (int64, error) {
	now := time.Now().UTC()
	r, err := c.Do(ctx, "POST", "/api/v1/admin/items", c.AdminToken, map[string]any{
		"name": name, "price_cents": 100, "stock_total": stock, "per_user_limit": perUserLimit,
		"starts_at": now.Add(-time.Minute).Format(time.RFC3339Nano),
		"ends_at":   now.Add(6 * time.Hour).Format(time.RFC3339Nano),
	})
	if err != nil {
		return 0, fmt.Errorf("create sale %q: %w", name, err)
	}
	id, _ := r.Body["id"].(float64)
	if r.Status != http.StatusCreated || id == 0 {
		return 0, fmt.Errorf("create sale %q: %d %s", name, r.Status, r.Raw)
	}
	return int64(id), nil
}

// Metrics is the server's /metrics page in Prometheus text.
func (c *Client) Metrics(ctx context.Context) (string, error) {
	r, err := c.Do(ctx, "GET", "/metrics", "", nil)
	if err != nil {
		return "", fmt.Errorf("scrape metrics: %w", err)
	}
	if r.Status != http.StatusOK {
		return "", fmt.Errorf("scrape metrics: %d", r.Status)
	}
	return r.Raw, nil
}
