package machine

import (
	"context"
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
