package e2etest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/testenv"
)

// SaleReport is GET /api/v1/admin/items/{id}/report, decoded.
type SaleReport struct {
	ItemID          int64          `json:"item_id"`
	Status          string         `json:"status"`
	StockTotal      int            `json:"stock_total"`
	Sold            int            `json:"sold"`
	OrdersByStatus  map[string]int `json:"orders_by_status"`
	Cancellations   map[string]int `json:"cancellations"`
	SellThrough     []CurvePoint   `json:"sell_through"`
	SoldOutAt       *time.Time     `json:"sold_out_at"`
	TimeToSellOutMs *int64         `json:"time_to_sell_out_ms"`
	Room            *RoomFigures   `json:"room"`
	Shed            int64          `json:"shed"`
	RateLimited     int64          `json:"rate_limited"`
}

type CurvePoint struct {
	T    time.Time `json:"t"`
	Sold int       `json:"sold"`
}

type RoomFigures struct {
	Joins, Admissions, Purchases, Abandoned int64
}

func (s *Server) Report(tb testing.TB, id int64) SaleReport {
	tb.Helper()
	r := s.Call(tb, "GET", "/api/v1/admin/items/"+Itoa(id)+"/report", AdminToken, nil)
	if r.Status != 200 {
		tb.Fatalf("report: %d %s", r.Status, r.Raw)
	}
	var out SaleReport
	if err := json.Unmarshal([]byte(r.Raw), &out); err != nil {
		tb.Fatalf("report: %v in %s", err, r.Raw)
	}
	return out
}

// ReportOnceCounted waits until the servers' counters have reached MySQL
// (they flush every 2 s) and the report shows want's counted figures.
func (s *Server) ReportOnceCounted(tb testing.TB, id int64, counted func(SaleReport) bool) SaleReport {
	tb.Helper()
	var got SaleReport
	if !testenv.Eventually(15*time.Second, func() bool { got = s.Report(tb, id); return counted(got) }) {
		tb.Fatalf("counters never reached the report: %+v", got)
	}
	return got
}
