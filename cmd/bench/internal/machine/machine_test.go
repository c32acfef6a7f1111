package machine

import (
	"context"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/seckill/seckill/internal/testenv"
)

func TestLoopbackAndLocalPID(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]bool{"127.0.0.1:6379": true, "localhost:3306": true, "[::1]:6379": true,
		"10.0.0.5:6379": false, "redis:6379": false, "127.0.0.1": false} {
		if got := loopback(addr); got != want {
			t.Errorf("loopback(%q) = %v, want %v", addr, got, want)
		}
	}
	self := os.Getpid()
	if got := localPID(self, "nothing-like-it", "machine"); got != self {
		t.Errorf("localPID(self, machine) = %d, want %d", got, self)
	}
	if got := localPID(self, "redis"); got != 0 {
		t.Errorf("localPID(self, redis) = %d, want 0", got)
	}
}

// The services' pids are found when they run here, and never a wrong one.
func TestServicePIDs(t *testing.T) {
	t.Parallel()
	db := testenv.MySQL(t)
	rdb, _ := testenv.Redis(t)
	ctx := context.Background()
	for _, s := range []struct {
		pid   int
		names []string
	}{
		{RedisPID(ctx, rdb, testenv.RedisAddr(t)), []string{"redis"}},
		{MySQLPID(ctx, db.DSN), []string{"mysqld", "mariadbd"}},
	} {
		comm := strings.TrimSpace(readFile("/proc/" + strconv.Itoa(s.pid) + "/comm"))
		if s.pid != 0 && !slices.ContainsFunc(s.names, func(n string) bool { return strings.Contains(comm, n) }) {
			t.Errorf("%v: pid %d runs %q", s.names, s.pid, comm)
		}
		t.Logf("%v: pid %d (%s)", s.names, s.pid, comm)
	}
}

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
