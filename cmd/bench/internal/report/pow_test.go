package report

import (
	"math"
	"strings"
	"testing"
)

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
