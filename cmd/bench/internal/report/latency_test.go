package report

import "testing"

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
