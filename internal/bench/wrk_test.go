package bench

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestParseWrk(t *testing.T) {
	tests := []struct {
		file string
		want WrkResult
	}{
		{"wrk-ceiling-latency.txt", WrkResult{Requests: 134652, Seconds: 3.08, RPS: 43718.86, Non2xx: 134652,
			P50ms: 2.37, P99ms: 24.03}},
		{"wrk-floor.txt", WrkResult{Requests: 60753, Seconds: 3.10, RPS: 19574.78}},
		{"wrk-socket-errors.txt", WrkResult{Requests: 36495, Seconds: 3.07, RPS: 11875.76, Read: 16, Write: 208511}},
		{"wrk-many-conns.txt", WrkResult{Requests: 12556, Seconds: 3.14, RPS: 4003.93, Non2xx: 12556,
			P50ms: 927.96, P99ms: 1520}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := ParseWrk(readTestdata(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if got = rounded(got); got != tt.want {
				t.Errorf("ParseWrk = %+v\nwant        %+v", got, tt.want)
			}
		})
	}
}

func TestParseWrkRefusesOutputWithoutTotals(t *testing.T) {
	for _, out := range []string{readTestdata(t, "wrk-refused.txt"), ""} {
		if _, err := ParseWrk(out); !errors.Is(err, ErrWrkOutput) {
			t.Errorf("ParseWrk(%q) error = %v, want ErrWrkOutput", out, err)
		}
	}
}

func TestWrkResultDerived(t *testing.T) {
	r := WrkResult{Connect: 1, Read: 2, Write: 3, Timeout: 4, GenCPUSeconds: 3, GenWallSecs: 4}
	if got := r.SocketErrors(); got != 10 {
		t.Errorf("SocketErrors = %d, want 10", got)
	}
	if got := r.GenCores(); got != 0.75 {
		t.Errorf("GenCores = %v, want 0.75", got)
	}
	if got := (WrkResult{}).GenCores(); got != 0 {
		t.Errorf("GenCores of an empty result = %v, want 0", got)
	}
}

// rounded drops the float noise of unit conversion (4.48 s is not exactly
// 4480 ms in binary).
func rounded(r WrkResult) WrkResult {
	round := func(v float64) float64 { return math.Round(v*1e6) / 1e6 }
	r.Seconds, r.RPS, r.P50ms, r.P99ms = round(r.Seconds), round(r.RPS), round(r.P50ms), round(r.P99ms)
	return r
}

func readTestdata(tb testing.TB, name string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}
