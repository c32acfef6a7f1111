package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// newBrowser is one simulated browser's HTTP client: keep-alive
// connections of its own, as a browser has, so the server holds as many
// connections as there are pages and shoppers, not a shared pool's few.
// Close it with CloseIdleConnections.
func newBrowser() *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       time.Minute,
		ResponseHeaderTimeout: 30 * time.Second,
		DisableCompression:    true, // the server does not compress; a browser would ask, to no effect
	}}
}

// tally counts answers by kind ("poll 200", "item 304", "stream error"),
// from many goroutines at once.
type tally struct {
	mu sync.Mutex
	m  map[string]int64
}

func (t *tally) add(kind string, status int, err error) {
	key := kind + " " + strconv.Itoa(status)
	if err != nil {
		key = kind + " error"
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[string]int64{}
	}
	t.m[key]++
}

func (t *tally) snapshot() map[string]int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.m)
}

// since is the counts added between before and now.
func (t *tally) since(before map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range t.snapshot() {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// buy sends the purchase the sale page sends (as shoppers.lua does) and
// returns the HTTP status and, for a 202, the order's id.
func buy(ctx context.Context, c *http.Client, base string, sh shopper, token string, item int64) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", base+itemPath(item)+"/purchase", bytes.NewReader([]byte(`{"quantity":1}`)))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Authorization", "Bearer "+sh.jwt)
	req.Header.Set("X-Purchase-Token", token)
	req.Header.Set("Content-Type", "application/json")
	var body struct {
		OrderID string `json:"order_id"`
	}
	status, err := doJSON(c, req, &body)
	if err == nil && status == http.StatusAccepted && body.OrderID == "" {
		err = fmt.Errorf("purchase answered 202 without an order_id")
	}
	return status, body.OrderID, err
}

// orderStatus is the part of an order's JSON a follower reads.
type orderStatus struct {
	Status string `json:"status"`
}

// getOrder is one poll: GET /api/v1/orders/{id} as the shopper.
func getOrder(ctx context.Context, c *http.Client, base string, sh shopper, orderID string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", base+"/api/v1/orders/"+orderID, nil)
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Authorization", "Bearer "+sh.jwt)
	var o orderStatus
	status, err := doJSON(c, req, &o)
	return status, o.Status, err
}

// doJSON sends req and decodes a 2xx JSON answer into v. The body is read
// to its end either way, so the connection goes back for reuse.
func doJSON(c *http.Client, req *http.Request, v any) (int, error) {
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode/100 != 2 {
		return resp.StatusCode, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return resp.StatusCode, fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, err)
	}
	return resp.StatusCode, nil
}
