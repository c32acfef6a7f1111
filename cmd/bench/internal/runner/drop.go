package runner

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/seckill/seckill/cmd/bench/internal/report"
)

// dropSizes are the variants of the drop row's sale, a sneaker drop's sizes.
var dropSizes = []string{"EU 38", "EU 39", "EU 40", "EU 41", "EU 42", "EU 43", "EU 44", "EU 45", "EU 46", "EU 47"}

// dropSizeStock is each size's stock: the most a sale may hold (maxStock)
// split between the sizes, far more than a run sells of even the busiest.
var dropSizeStock = maxStock / len(dropSizes)

// dropDemand is the share of shoppers wanting each of n sizes: it falls
// 2.5-fold per size away from the middle, so with ten sizes the two middle
// ones get about 60% and the outer ones about 1% each, as in a real drop.
// loadtest/drop.js skews its shoppers the same way.
func dropDemand(n int) []float64 {
	mid := float64(n-1) / 2
	out := make([]float64, n)
	var sum float64
	for i := range out {
		out[i] = math.Pow(2.5, -math.Abs(float64(i)-mid))
		sum += out[i]
	}
	for i := range out {
		out[i] /= sum
	}
	return out
}

// dropChoice is the size shopper i wants. Stepping by 61 (prime to 100)
// through a hundred slots gives every block of 100 shoppers the same mix,
// so every round sees the same demand, by design rather than by chance.
func dropChoice(shares []float64, i int) int {
	u := (float64(i*61%100) + 0.5) / 100
	var acc float64
	for p, s := range shares {
		if acc += s; u < acc {
			return p
		}
	}
	return len(shares) - 1
}

// dropMix is the share of shoppers dropChoice gives each of n sizes: what
// the drop row's shoppers ask for, dropDemand rounded to the hundred slots.
func dropMix(n int) []float64 {
	shares, slots := dropDemand(n), make([]int, n)
	for i := range 100 {
		slots[dropChoice(shares, i)]++
	}
	out := make([]float64, n)
	for p, k := range slots {
		out[p] = float64(k) / 100
	}
	return out
}

// dropRound is purchaseRound on a sale of ten sizes, each shopper asking
// for its size: the same wrk runs at the floor and at the server, the
// floor getting the same requests (it ignores variant_id).
func (r *runner) dropRound(ctx context.Context, round int, seckillFirst bool) (report.PurchaseRound, error) {
	variants, item, err := r.seckill.createDrop(ctx, fmt.Sprintf("bench drop %d", round))
	if err != nil {
		return report.PurchaseRound{Round: round}, err
	}
	shares := dropDemand(len(variants))
	return r.purchaseRuns(ctx, round, seckillFirst, item, fmt.Sprintf("drop-%d", round), func(i int) int64 {
		return variants[dropChoice(shares, i)]
	})
}

// createDrop creates an open sale of dropSizes, per-shopper limit 1, and
// returns its variants' ids in size order and the sale's id.
func (s *seckillServer) createDrop(ctx context.Context, name string) ([]int64, int64, error) {
	sizes := make([]map[string]any, len(dropSizes))
	for i, label := range dropSizes {
		sizes[i] = map[string]any{"label": label, "stock_total": dropSizeStock}
	}
	now := time.Now().UTC()
	reply, err := s.api.Do(ctx, "POST", "/api/v1/admin/items", s.admin, map[string]any{
		"name": name, "price_cents": 100, "per_user_limit": 1, "variants": sizes,
		"starts_at": now.Add(-time.Minute).Format(time.RFC3339Nano), // as harness.CreateSale, open by the server's clock
		"ends_at":   now.Add(6 * time.Hour).Format(time.RFC3339Nano),
	})
	if err != nil {
		return nil, 0, fmt.Errorf("create drop %q: %w", name, err)
	}
	id, _ := reply.Body["id"].(float64)
	list, _ := reply.Body["variants"].([]any)
	if reply.Status != http.StatusCreated || id == 0 || len(list) != len(dropSizes) {
		return nil, 0, fmt.Errorf("create drop %q: %d %s", name, reply.Status, reply.Raw)
	}
	ids := make([]int64, len(list))
	for i, v := range list {
		m, _ := v.(map[string]any)
		vid, _ := m["id"].(float64)
		if label, _ := m["label"].(string); label != dropSizes[i] || vid == 0 {
			return nil, 0, fmt.Errorf("create drop %q: variant %d is %v, want %s", name, i, m, dropSizes[i])
		}
		ids[i] = int64(vid)
	}
	return ids, int64(id), nil
}
