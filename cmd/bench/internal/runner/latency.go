package runner

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/seckill/seckill/cmd/bench/internal/report"
)

// pacedPurchases sends purchases at a constant arrival rate for d, each from
// a different shopper. Unlike wrk, the sender does not wait for an answer
// before the next request is due, so a slow answer shows in the latencies
// instead of quietly lowering the rate (coordinated omission).
// base is the system's URL; secret signs the purchase tokens.
func pacedPurchases(ctx context.Context, base, secret string, item int64, shoppers []shopper, rate float64, d time.Duration) (report.LatencyResult, error) {
	need := int(rate*d.Seconds()) + 1
	if need > len(shoppers) {
		return report.LatencyResult{}, fmt.Errorf("paced run needs %d shoppers, only %d minted: raise -shopper-rate", need, len(shoppers))
	}
	url := base + itemPath(item) + "/purchase"
	mint := purchaseTokens(secret, item, time.Hour)
	headers := make([]http.Header, need)
	for i := range headers {
		headers[i] = http.Header{
			"Authorization":    {"Bearer " + shoppers[i].jwt},
			"X-Purchase-Token": {mint(shoppers[i].user)},
			"Content-Type":     {"application/json"},
		}
	}
	var next atomic.Int64
	targeter := func(t *vegeta.Target) error {
		i := int(next.Add(1) - 1)
		if i >= len(headers) {
			return vegeta.ErrNoTargets
		}
		t.Method, t.URL, t.Body, t.Header = "POST", url, []byte(`{"quantity":1}`), headers[i]
		return nil
	}
	atk := vegeta.NewAttacker(vegeta.Timeout(10*time.Second), vegeta.KeepAlive(true), vegeta.Workers(32))
	stop := context.AfterFunc(ctx, func() { atk.Stop() })
	defer stop()
	var m vegeta.Metrics
	for res := range atk.Attack(targeter, vegeta.Rate{Freq: int(rate), Per: time.Second}, d, "latency") {
		m.Add(res)
	}
	m.Close()
	if err := ctx.Err(); err != nil {
		return report.LatencyResult{}, err
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	return report.LatencyResult{
		TargetRate: float64(int(rate)), Seconds: m.Duration.Seconds(), Requests: m.Requests, AchievedRate: m.Rate,
		P50ms: ms(m.Latencies.P50), P95ms: ms(m.Latencies.P95), P99ms: ms(m.Latencies.P99), Maxms: ms(m.Latencies.Max),
		Success: m.Success, StatusCodes: m.StatusCodes, Errors: m.Errors,
	}, nil
}
