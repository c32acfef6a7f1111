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

// createSale creates an open sale through the admin API (harness.Client's
// CreateSale) and returns its id; it fails the test if it cannot.
func createSale(tb testing.TB, api *harness.Client, stockTotal, perUserLimit int) int64 {
	tb.Helper()
	id, err := api.CreateSale(context.Background(), "Fault-injection sneakers", stockTotal, perUserLimit)
	if err != nil {
		tb.Fatal(err)
	}
	return id
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
