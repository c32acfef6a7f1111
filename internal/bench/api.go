package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"time"
)

var apiClient = &http.Client{Timeout: 10 * time.Second}

// createSale creates an open sale through the admin API. It opens a few
// seconds in the past: the reserve script refuses a purchase before the
// opening by the server's clock.
func (s *seckillServer) createSale(ctx context.Context, name string, stock int) (int64, error) {
	now := time.Now().UTC()
	body, _ := json.Marshal(map[string]any{
		"name": name, "price_cents": 100, "stock_total": stock, "per_user_limit": 1,
		"starts_at": now.Add(-5 * time.Second).Format(time.RFC3339Nano),
		"ends_at":   now.Add(6 * time.Hour).Format(time.RFC3339Nano),
	})
	var out struct {
		ID int64 `json:"id"`
	}
	status, raw, err := s.do(ctx, "POST", "/api/v1/admin/items", body, map[string]string{"Authorization": "Bearer " + s.admin})
	if err != nil {
		return 0, fmt.Errorf("create sale %q: %w", name, err)
	}
	if status != http.StatusCreated || json.Unmarshal(raw, &out) != nil || out.ID == 0 {
		return 0, fmt.Errorf("create sale %q: %d %s", name, status, raw)
	}
	return out.ID, nil
}

// purchase buys one unit of item as sh, returning the HTTP status.
func (s *seckillServer) purchase(ctx context.Context, sh shopper, token string, item int64) (int, error) {
	status, _, err := s.do(ctx, "POST", "/api/v1/items/"+strconv.FormatInt(item, 10)+"/purchase",
		[]byte(`{"quantity":1}`), map[string]string{"Authorization": "Bearer " + sh.jwt, "X-Purchase-Token": token})
	return status, err
}

func (s *seckillServer) do(ctx context.Context, method, path string, body []byte, headers map[string]string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, s.url+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := apiClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return resp.StatusCode, raw, err
}

// Scrape is what the benchmark reads from the server's /metrics.
type Scrape struct {
	Outcomes map[string]float64 // seckill_purchases_total by outcome
	Pending  float64            // seckill_stream_pending_orders
	// RoundTrips is the coalesced Redis round trips of every operation
	// (seckill_redis_batch_size_count): an instance with half the requests
	// coalesces fewer into each.
	RoundTrips float64
}

var (
	reOutcome = regexp.MustCompile(`(?m)^seckill_purchases_total\{outcome="([^"]+)"\} (\S+)$`)
	rePending = regexp.MustCompile(`(?m)^seckill_stream_pending_orders (\S+)$`)
	reTrips   = regexp.MustCompile(`(?m)^seckill_redis_batch_size_count\{op="[^"]+"\} (\S+)$`)
)

// ParseMetrics reads the purchase outcomes and the persistence backlog from
// Prometheus text.
func ParseMetrics(text string) (Scrape, error) {
	sc := Scrape{Outcomes: map[string]float64{}}
	for _, m := range reOutcome.FindAllStringSubmatch(text, -1) {
		v, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			return Scrape{}, fmt.Errorf("metrics: outcome %s: %w", m[1], err)
		}
		sc.Outcomes[m[1]] = v
	}
	for _, m := range reTrips.FindAllStringSubmatch(text, -1) {
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			return Scrape{}, fmt.Errorf("metrics: round trips: %w", err)
		}
		sc.RoundTrips += v
	}
	m := rePending.FindStringSubmatch(text)
	if m == nil {
		return Scrape{}, fmt.Errorf("metrics: no seckill_stream_pending_orders")
	}
	var err error
	if sc.Pending, err = strconv.ParseFloat(m[1], 64); err != nil {
		return Scrape{}, fmt.Errorf("metrics: pending: %w", err)
	}
	return sc, nil
}

// Since is the count of each outcome between before and s; outcomes that
// did not move are left out.
func (s Scrape) Since(before Scrape) map[string]int64 {
	out := map[string]int64{}
	for k, v := range s.Outcomes {
		if d := int64(v - before.Outcomes[k]); d != 0 {
			out[k] = d
		}
	}
	return out
}

func (s *seckillServer) scrape(ctx context.Context) (Scrape, error) {
	status, raw, err := s.do(ctx, "GET", "/metrics", nil, nil)
	if err != nil {
		return Scrape{}, fmt.Errorf("scrape metrics: %w", err)
	}
	if status != http.StatusOK {
		return Scrape{}, fmt.Errorf("scrape metrics: %d", status)
	}
	return ParseMetrics(string(raw))
}

// waitDrained waits until the persistence backlog is empty, so the next run
// does not share the machine with MySQL catching up.
func (s *seckillServer) waitDrained(ctx context.Context, timeout time.Duration) (time.Duration, error) {
	began := time.Now()
	for {
		sc, err := s.scrape(ctx)
		if err != nil {
			return time.Since(began), err
		}
		if sc.Pending == 0 {
			return time.Since(began), nil
		}
		if time.Since(began) > timeout {
			return time.Since(began), fmt.Errorf("persistence backlog still %v after %s", sc.Pending, timeout)
		}
		select {
		case <-ctx.Done():
			return time.Since(began), ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
