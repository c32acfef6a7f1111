package bench

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/seckill/seckill/internal/testenv"
)

func TestSplitLoad(t *testing.T) {
	tests := []struct {
		threads, conns, n int
		want              []wrkPart
	}{
		{2, 128, 1, []wrkPart{{2, 128, 0}}},
		{2, 128, 2, []wrkPart{{1, 64, 0}, {1, 64, 1}}},
		{3, 7, 2, []wrkPart{{2, 4, 0}, {1, 3, 2}}},
		{4, 10, 3, []wrkPart{{2, 4, 0}, {1, 3, 2}, {1, 3, 3}}},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.threads)+"x"+strconv.Itoa(tt.conns)+"/"+strconv.Itoa(tt.n), func(t *testing.T) {
			got := splitLoad(tt.threads, tt.conns, tt.n)
			if len(got) != len(tt.want) {
				t.Fatalf("splitLoad = %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("part %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// The parts of a split run must read every shopper file once between them:
// the two-instance side then sends the same shoppers as the one-instance
// side, none twice.
func TestShoppersInCoversEveryShopperOnce(t *testing.T) {
	for _, c := range []struct{ n, threads, parts int }{{11, 2, 2}, {11, 3, 2}, {540000, 2, 2}, {7, 4, 3}} {
		var sum int64
		for _, p := range splitLoad(c.threads, c.threads*10, c.parts) {
			var want int64 // count the shoppers writeShopperFiles puts in p's files
			for i := 0; i < c.n; i++ {
				if f := i % c.threads; f >= p.first && f < p.first+p.threads {
					want++
				}
			}
			if got := shoppersIn(c.n, c.threads, p); got != want {
				t.Errorf("%+v: shoppersIn(%+v) = %d, want %d", c, p, got, want)
			}
			sum += want
		}
		if sum != int64(c.n) {
			t.Errorf("%+v: the parts hold %d shoppers, want %d", c, sum, c.n)
		}
	}
}

func TestCPUMeterOnSelf(t *testing.T) {
	m := cpuMeter{servers: []int{os.Getpid()}}
	c, err := m.spent(func() error {
		for x, n := 0, 0; n < 2e8; n++ { // about 0.1 s of CPU: several ticks of /proc's clock
			x += n
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.Servers <= 0 || c.Machine < c.Servers/2 || c.Redis != 0 || c.MySQL != 0 {
		t.Errorf("spent = %+v: want the process's time, the machine's at least about as much, no services", c)
	}
	if p := (CPUSpent{Servers: 3, Machine: 6}).per1000(2000); p.Servers != 1.5 || p.Machine != 3 {
		t.Errorf("per1000 = %+v", p)
	}
}

func TestLoopbackAndLocalPID(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1:6379": true, "localhost:3306": true, "[::1]:6379": true,
		"10.0.0.5:6379": false, "redis:6379": false, "127.0.0.1": false} {
		if got := loopback(addr); got != want {
			t.Errorf("loopback(%q) = %v, want %v", addr, got, want)
		}
	}
	self := os.Getpid()
	if got := localPID(self, "nothing-like-it", "bench"); got != self {
		t.Errorf("localPID(self, bench) = %d, want %d", got, self)
	}
	if got := localPID(self, "redis"); got != 0 {
		t.Errorf("localPID(self, redis) = %d, want 0", got)
	}
}

// The services' pids are found when they run here, and never a wrong one.
func TestServicePIDs(t *testing.T) {
	db := testenv.MySQL(t)
	rdb, _ := testenv.Redis(t)
	ctx := context.Background()
	for _, s := range []struct {
		pid   int
		names []string
	}{
		{redisPID(ctx, rdb, testenv.RedisAddr(t)), []string{"redis"}},
		{mysqlPID(ctx, db.DSN), []string{"mysqld", "mariadbd"}},
	} {
		comm := strings.TrimSpace(readFile("/proc/" + strconv.Itoa(s.pid) + "/comm"))
		if s.pid != 0 && !slices.ContainsFunc(s.names, func(n string) bool { return strings.Contains(comm, n) }) {
			t.Errorf("%v: pid %d runs %q", s.names, s.pid, comm)
		}
		t.Logf("%v: pid %d (%s)", s.names, s.pid, comm)
	}
}
