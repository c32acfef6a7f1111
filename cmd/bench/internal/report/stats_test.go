package report

import (
	"math"
	"strings"
	"testing"

	"github.com/seckill/seckill/cmd/bench/internal/wrk"
)

func TestMedian(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{7}, 7},
		{[]float64{9, 1, 5}, 5},
		{[]float64{4, 1, 3, 2}, 2.5},
	}
	for _, tt := range tests {
		in := append([]float64(nil), tt.in...)
		if got := Median(tt.in); got != tt.want {
			t.Errorf("Median(%v) = %v, want %v", tt.in, got, tt.want)
		}
		for i := range in {
			if in[i] != tt.in[i] {
				t.Fatalf("Median reordered its input: %v", tt.in)
			}
		}
	}
}

func TestThousands(t *testing.T) {
	t.Parallel()
	for in, want := range map[float64]string{0: "0", 999: "999", 1000: "1,000", 43718.86: "43,719", 1234567: "1,234,567", -2500: "-2,500"} {
		if got := Thousands(in); got != want {
			t.Errorf("Thousands(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestMix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   map[string]int64
		want string
	}{
		{map[string]int64{"reserved": 5000}, "reserved 100%"},
		{map[string]int64{"marked_sold_out": 9900, "gated_sold_out": 98, "gated_unavailable": 2},
			"marked_sold_out 99%, gated_sold_out 1%, gated_unavailable 0.02%"},
		// A near-total is never rounded up to 100% beside a minority.
		{map[string]int64{"reserved": 99999, "already_purchased": 1}, "reserved 99.999%, already_purchased 0.001%"},
		{map[string]int64{}, "no answers counted"},
	}
	for _, tt := range tests {
		if got := Mix(tt.in); got != tt.want {
			t.Errorf("Mix(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCPUSpentPer1000(t *testing.T) {
	t.Parallel()
	if p := (CPUSpent{Servers: 3, Machine: 6}).per1000(2000); p.Servers != 1.5 || p.Machine != 3 {
		t.Errorf("per1000 = %+v", p)
	}
}

func TestLatencyRowJudgesBothConditions(t *testing.T) {
	t.Parallel()
	floor := &LatencyResult{Requests: 100, Success: 1, P50ms: 0.4, P99ms: 5}
	tests := []struct {
		name     string
		p50, p99 float64
		success  float64
		floor    *LatencyResult
		want     string
	}{
		{"both met", 0.8, 9, 1, floor, "PASS (p50 PASS, p99 PASS)"},
		{"p50 missed", 1.2, 9, 1, floor, "FAIL (p50 FAIL, p99 PASS)"},
		{"p99 missed", 0.8, 11, 1, floor, "FAIL (p50 PASS, p99 FAIL)"},
		{"errors", 0.8, 9, 0.5, floor, "FAIL (errors; p50 PASS, p99 PASS)"},
		{"no floor to judge p99 by", 0.8, 9, 1, nil, "FAIL (p50 PASS, p99 FAIL, no floor run)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			row := latencyRow(LatencyResult{Requests: 100, Success: tt.success, P50ms: tt.p50, P99ms: tt.p99}, tt.floor)
			if row.Result != tt.want {
				t.Errorf("result = %q, want %q", row.Result, tt.want)
			}
		})
	}
}

func TestPagesRowsFailWhatDidNotWork(t *testing.T) {
	t.Parallel()
	p := samplePages()
	p.Refresh[0].Seckill.Non2xx = 12
	p.Revalidated = 200
	p.Follow[0].SSE = FollowRun{Shoppers: 2000, Requests: 4000, Unavailable: "GET /api/v1/orders/{id}/events answered 404"}
	rows := pagesRows(p)
	for i, want := range []string{"FAIL (12 errors or non-2xx answers)", "info (not 304)",
		"FAIL (GET /api/v1/orders/{id}/events answered 404)"} {
		if rows[i].Result != want {
			t.Errorf("row %d (%s): result %q, want %q", i, rows[i].Measure, rows[i].Result, want)
		}
	}
	if !strings.Contains(rows[1].Seckill, "answered 200") {
		t.Errorf("revalidate row hides the answer: %q", rows[1].Seckill)
	}
	var b strings.Builder
	writePagesRuns(&b, p)
	if want := "| 1 | SSE | — | — | — | — | — | — | — | GET /api/v1/orders/{id}/events answered 404 |"; !strings.Contains(b.String(), want) {
		t.Errorf("runs lack %q:\n%s", want, b.String())
	}
}

func TestFollowFigures(t *testing.T) {
	t.Parallel()
	f := FollowRun{Shoppers: 1000, Requests: 3500, SeckillCPU: 0.9, HeldCPU: 0.4}
	if got := f.RequestsPer(); got != 3.5 {
		t.Errorf("requests per purchase = %v, want 3.5", got)
	}
	if got := f.CPUPer(); got < 0.4999 || got > 0.5001 {
		t.Errorf("CPU per purchase = %v ms, want 0.5 (0.9 s less the pages' 0.4 s over 1,000)", got)
	}
	h := HeldPages{Pages: 500, Seconds: 4, SeckillCPU: 0.1, Statuses: map[string]int64{"item 304": 1800, "time 200": 200}}
	if h.Rate() != 500 || h.CPUPerPage() != 0.1/2000 {
		t.Errorf("held pages: %v req/s, %v s per page-second", h.Rate(), h.CPUPerPage())
	}
	if got := refreshRow(&Pages{Refresh: []RefreshRound{{Ceiling: wrk.Result{RPS: 1000}, Seckill: wrk.Result{RPS: 700}}}}); got.Result != "FAIL" {
		t.Errorf("refresh at 0.7× the ceiling: %q, want FAIL", got.Result)
	}
}

// TestPowRows: the browser row passes on a median under a second whatever
// the slow tail; the farm's CPU is the sum of 2^d over its entries divided
// by the native rate, set against the same entries at the base.
func TestPowRows(t *testing.T) {
	p := &PowResult{Difficulty: 10, BrowserMs: []float64{100, 200, 900, 3000, 50}, BrowserHashes: []int64{100, 200, 900, 3000, 50},
		FarmEntries: 4, FarmDifficulty: []int{10, 10, 11, 12}, NativeRate: 1024, NetworkFree: 60}
	rows := PowRows(p)
	if len(rows) != 3 || rows[0].Result != "PASS" || !strings.Contains(rows[0].Seckill, "median 200 ms") ||
		!strings.Contains(rows[0].Seckill, "1,000 hashes/s") {
		t.Fatalf("browser row: %+v", rows)
	}
	// (1024+1024+2048+4096)/1024 = 8 s, against 4 × 1024/1024 = 4 s at the base.
	if farm := rows[2]; !strings.Contains(farm.Seckill, "10 → 12 bits") || !strings.Contains(farm.Seckill, "8 CPU seconds") ||
		!strings.Contains(farm.Baseline, "4.0 CPU seconds") || farm.Ratio != "2.00×" {
		t.Fatalf("farm row: %+v", farm)
	}
	p.BrowserMs = []float64{1500, 900, 1200}
	if r := PowRows(p)[0]; r.Result != "FAIL" {
		t.Fatalf("a median over a second: %s", r.Result)
	}
	if got := percentile([]float64{5, 1, 4, 2, 3, 6, 7, 8, 9, 10}, 0.9); got != 9 {
		t.Fatalf("p90 = %v", got)
	}
	if math.IsNaN(PowResult{}.BrowserRate()) || PowRows(nil) != nil {
		t.Fatal("no proof-of-work figures must give no rows")
	}
}
