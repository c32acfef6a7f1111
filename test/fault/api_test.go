package fault

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/seckill/seckill/internal/harness"
)

// sizes is how many variants every fault test's sale has: each test storms
// one drop, bought by variant_id, so the faults meet the per-variant stock
// in both stores and the one-order-per-sale rule across variants.
const sizes = 4

// createSale creates, through the admin API, a drop open for the next six
// hours (by this machine's clock, a minute early) of sizes variants sharing
// stockTotal (the first ones take the remainder), and returns its id; it
// fails the test if it cannot.
func createSale(tb testing.TB, api *harness.Client, stockTotal, perUserLimit int) int64 {
	tb.Helper()
	variants := make([]map[string]any, sizes)
	for i := range variants {
		n := stockTotal / sizes
		if i < stockTotal%sizes {
			n++
		}
		variants[i] = map[string]any{"label": "EU " + strconv.Itoa(40+i), "stock_total": n}
	}
	now := time.Now().UTC()
	r, err := api.Do(context.Background(), "POST", "/api/v1/admin/items", api.AdminToken, map[string]any{
		"name": "Fault-injection sneakers", "price_cents": 100, "per_user_limit": perUserLimit, "variants": variants,
		"starts_at": now.Add(-time.Minute).Format(time.RFC3339Nano),
		"ends_at":   now.Add(6 * time.Hour).Format(time.RFC3339Nano),
	})
	id, _ := r.Body["id"].(float64)
	if err != nil || r.Status != http.StatusCreated || id == 0 {
		tb.Fatalf("create drop: %v %d %s", err, r.Status, r.Raw)
	}
	return int64(id)
}

// saleVariants reads the ids of a sale's variants from the shop's API, as
// a shopper's page does.
func saleVariants(tb testing.TB, base string, id int64) []int64 {
	tb.Helper()
	api := harness.NewClient(base, "")
	r, err := api.Do(context.Background(), "GET", "/api/v1/items/"+strconv.FormatInt(id, 10), "", nil)
	vs, _ := r.Body["variants"].([]any)
	if err != nil || r.Status != http.StatusOK || len(vs) == 0 {
		tb.Fatalf("variants of sale %d: %v %d %s", id, err, r.Status, r.Raw)
	}
	ids := make([]int64, len(vs))
	for i, v := range vs {
		f, _ := v.(map[string]any)["id"].(float64)
		ids[i] = int64(f)
	}
	return ids
}

// Stats are the admin stats of one sale.
type Stats struct {
	StockTotal      int            `json:"stock_total"`
	StockMySQL      int            `json:"stock_mysql"`
	StockRedis      *int64         `json:"stock_redis"`
	OrdersPending   int            `json:"orders_pending"`
	OrdersConfirmed int            `json:"orders_confirmed"`
	Sold            int            `json:"sold"`
	Consistent      bool           `json:"consistent"`
	Problems        []string       `json:"problems"`
	Variants        []VariantStats `json:"variants"`
	Raw             string         `json:"-"`
}

// VariantStats are the admin stats of one variant of a sale.
type VariantStats struct {
	VariantID  int64    `json:"variant_id"`
	StockTotal int      `json:"stock_total"`
	StockMySQL int      `json:"stock_mysql"`
	StockRedis *int64   `json:"stock_redis"`
	Sold       int      `json:"sold"`
	Consistent bool     `json:"consistent"`
	Problems   []string `json:"problems"`
}

// stats reads GET /api/v1/admin/items/{id}/stats.
func stats(ctx context.Context, api *harness.Client, id int64) (Stats, error) {
	r, err := api.Do(ctx, "GET", "/api/v1/admin/items/"+strconv.FormatInt(id, 10)+"/stats", api.AdminToken, nil)
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

// metricOf reads one sample from GET /metrics, named with its labels as the
// page prints them.
func metricOf(ctx context.Context, api *harness.Client, name string) (float64, error) {
	text, err := api.Metrics(ctx)
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	return 0, fmt.Errorf("metric %s not in /metrics", name)
}

// MintToken signs a shopper token as a shop's own login would. It is
// written out here, not taken from the server's code, so the tests also
// check that a token signed by someone else's code is accepted.
func MintToken(secret, user string) (string, error) {
	return jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"sub": user, "exp": time.Now().Add(2 * time.Hour).Unix(),
	}).SignedString([]byte(secret))
}
