package wrk

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		want Result
	}{
		{"wrk-ceiling-latency.txt", Result{Requests: 134652, Seconds: 3.08, RPS: 43718.86, Non2xx: 134652,
			P50ms: 2.37, P99ms: 24.03}},
		{"wrk-floor.txt", Result{Requests: 60753, Seconds: 3.10, RPS: 19574.78}},
		{"wrk-socket-errors.txt", Result{Requests: 36495, Seconds: 3.07, RPS: 11875.76, Read: 16, Write: 208511}},
		{"wrk-many-conns.txt", Result{Requests: 12556, Seconds: 3.14, RPS: 4003.93, Non2xx: 12556,
			P50ms: 927.96, P99ms: 1520}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(readTestdata(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if got = rounded(got); got != tt.want {
				t.Errorf("Parse = %+v\nwant        %+v", got, tt.want)
			}
		})
	}
}

func TestParseRefusesOutputWithoutTotals(t *testing.T) {
	t.Parallel()
	for _, out := range []string{readTestdata(t, "wrk-refused.txt"), ""} {
		if _, err := Parse(out); !errors.Is(err, ErrOutput) {
			t.Errorf("Parse(%q) error = %v, want ErrOutput", out, err)
		}
	}
}

func TestResultDerived(t *testing.T) {
	t.Parallel()
	r := Result{Connect: 1, Read: 2, Write: 3, Timeout: 4, GenCPUSeconds: 3, GenWallSecs: 4}
	if got := r.SocketErrors(); got != 10 {
		t.Errorf("SocketErrors = %d, want 10", got)
	}
	if got := r.GenCores(); got != 0.75 {
		t.Errorf("GenCores = %v, want 0.75", got)
	}
	if got := (Result{}).GenCores(); got != 0 {
		t.Errorf("GenCores of an empty result = %v, want 0", got)
	}
}

// rounded drops the float noise of unit conversion (4.48 s is not exactly
// 4480 ms in binary).
func rounded(r Result) Result {
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

func TestSplit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		threads, conns, n int
		want              []Part
	}{
		{2, 128, 1, []Part{{2, 128, 0}}},
		{2, 128, 2, []Part{{1, 64, 0}, {1, 64, 1}}},
		{3, 7, 2, []Part{{2, 4, 0}, {1, 3, 2}}},
		{4, 10, 3, []Part{{2, 4, 0}, {1, 3, 2}, {1, 3, 3}}},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.threads)+"x"+strconv.Itoa(tt.conns)+"/"+strconv.Itoa(tt.n), func(t *testing.T) {
			t.Parallel()
			got := Split(tt.threads, tt.conns, tt.n)
			if len(got) != len(tt.want) {
				t.Fatalf("Split = %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("part %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}
