package machine

import (
	"errors"
	"os"
	"testing"
)

func TestParseStatCPU(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, stat string
		want       float64
	}{
		{"plain", "13297 (cat) R 13283 13283 7828 0 -1 4194304 99 0 0 0 250 37 0 0 20 0 1 0 50861 3133440 413", 2.87},
		// A process may name itself anything, spaces and parentheses included.
		{"odd name", "42 (my (odd) name) S 1 1 1 0 -1 0 0 0 0 0 1000 1 0 0 20 0 9 0 1 1 1", 10.01},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseStatCPU(tt.stat)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("ParseStatCPU = %v, want %v", got, tt.want)
			}
		})
	}
	for _, bad := range []string{"", "1 (x) R 1 2", "1 (x) R 1 1 1 0 -1 0 0 0 0 0 x y"} {
		if _, err := ParseStatCPU(bad); !errors.Is(err, ErrProcFormat) {
			t.Errorf("ParseStatCPU(%q) error = %v, want ErrProcFormat", bad, err)
		}
	}
}

func TestParseVmHWM(t *testing.T) {
	t.Parallel()
	got, err := ParseVmHWM("Name:\tseckill\nVmPeak:\t 2108432 kB\nVmHWM:\t   48264 kB\nVmRSS:\t   48008 kB\n")
	if err != nil {
		t.Fatal(err)
	}
	if got != 48264*1024 {
		t.Errorf("ParseVmHWM = %d, want %d", got, 48264*1024)
	}
	if _, err := ParseVmHWM("Name:\tx\n"); !errors.Is(err, ErrProcFormat) {
		t.Errorf("ParseVmHWM without VmHWM: error = %v, want ErrProcFormat", err)
	}
}

// The readers work on this very process, which certainly exists.
func TestProcReadersOnSelf(t *testing.T) {
	t.Parallel()
	if _, err := CPUSeconds(os.Getpid()); err != nil {
		t.Errorf("CPUSeconds(self): %v", err)
	}
	if rss, err := PeakRSS(os.Getpid()); err != nil || rss <= 0 {
		t.Errorf("PeakRSS(self) = %d, %v", rss, err)
	}
}

func TestParseCPUTotals(t *testing.T) {
	t.Parallel()
	// user nice system idle iowait irq softirq steal guest guest_nice
	busy, total, err := ParseCPUTotals("cpu  100 5 50 800 40 3 2 0 7 1\ncpu0 50 2 25 400 20 1 1 0 0 0\n")
	if err != nil {
		t.Fatal(err)
	}
	if busy != 160 || total != 1000 {
		t.Errorf("busy, total = %d, %d; want 160, 1000", busy, total)
	}
	if _, _, err := ParseCPUTotals("intr 1 2 3\n"); !errors.Is(err, ErrProcFormat) {
		t.Errorf("error = %v, want ErrProcFormat", err)
	}
}
