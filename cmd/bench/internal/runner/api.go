package runner

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// createSale creates an open sale of stock units, one per shopper, through
// the admin API.
func (s *seckillServer) createSale(ctx context.Context, name string, stock int) (int64, error) {
	return s.api.CreateSale(ctx, name, stock, 1)
}

// purchase buys one unit of item as sh, returning the HTTP status.
func (s *seckillServer) purchase(ctx context.Context, sh shopper, token string, item int64) (int, error) {
	r, err := s.api.Do(ctx, "POST", itemPath(item)+"/purchase", sh.jwt, map[string]int{"quantity": 1},
		"X-Purchase-Token", token)
	return r.Status, err
}

// Scrape is what the benchmark reads from the server's /metrics.
type Scrape struct {
	Outcomes map[string]float64 // seckill_purchases_total by outcome
	Pending  float64            // seckill_stream_pending_orders
	// RoundTrips is the coalesced Redis round trips of every operation
	// (seckill_redis_batch_size_count): an instance with half the requests
	// coalesces fewer into each.
	RoundTrips float64
	// PersistTx and PersistOrders are the persisters' transactions and the
	// orders they inserted (seckill_persist_batch_orders): how full the
	// batches ran. 0 from a server without that metric.
	PersistTx, PersistOrders float64
}

var (
	reOutcome = regexp.MustCompile(`(?m)^seckill_purchases_total\{outcome="([^"]+)"\} (\S+)$`)
	rePending = regexp.MustCompile(`(?m)^seckill_stream_pending_orders (\S+)$`)
	reTrips   = regexp.MustCompile(`(?m)^seckill_redis_batch_size_count\{op="[^"]+"\} (\S+)$`)
	rePersist = regexp.MustCompile(`(?m)^seckill_persist_batch_orders_(sum|count) (\S+)$`)
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
	for _, m := range rePersist.FindAllStringSubmatch(text, -1) {
		v, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			return Scrape{}, fmt.Errorf("metrics: persist batches: %w", err)
		}
		if m[1] == "sum" {
			sc.PersistOrders = v
		} else {
			sc.PersistTx = v
		}
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
	text, err := s.api.Metrics(ctx)
	if err != nil {
		return Scrape{}, err
	}
	return ParseMetrics(text)
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
