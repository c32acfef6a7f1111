package runner

import (
	"testing"
	"time"
)

func TestPercentiles(t *testing.T) {
	t.Parallel()
	took := make([]time.Duration, 201)
	for i := 1; i < len(took); i++ {
		took[i] = time.Duration(i) * time.Millisecond // 1..200 ms, and one never confirmed
	}
	n, p50, p99 := percentiles(took)
	if n != 200 || p50 < 100 || p50 > 101 || p99 < 197 || p99 > 199 {
		t.Errorf("percentiles = %d, p50 %v, p99 %v", n, p50, p99)
	}
	if n, _, _ := percentiles([]time.Duration{0, 0}); n != 0 {
		t.Errorf("none confirmed counted as %d", n)
	}
}
