// Package machine says what the benchmark ran on and what its processes
// spent: versions and load for the report, CPU time and peak memory of a
// process from /proc, the busy share of all cores, and a wait for a quiet
// machine before each measured run. Linux only, as the benchmark is.
package machine

import (
	"context"
	"database/sql"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"
)

// Machine is what the figures were measured on.
type Machine struct {
	CPU     string `json:"cpu"`
	Cores   int    `json:"cores"`
	Kernel  string `json:"kernel"`
	Go      string `json:"go"`
	Redis   string `json:"redis"`
	MariaDB string `json:"mysql"`
	Wrk     string `json:"wrk"`
	Date    string `json:"date"`
	// Load averages (1, 5, 15 min) when the run began and ended: the
	// figures assume nothing else is using the machine.
	LoadStart string `json:"load_average_start"`
	LoadEnd   string `json:"load_average_end"`
}

// Describe asks each part for its version (MySQL at mysqlDSN, the wrk
// binary wrkBin); a part that does not answer is reported as "unknown"
// rather than failing the run.
func Describe(ctx context.Context, mysqlDSN, wrkBin string, rdb *redis.Client, now time.Time) Machine {
	return Machine{
		CPU: cpuModel(), Cores: runtime.NumCPU(), Kernel: strings.TrimSpace(readFile("/proc/sys/kernel/osrelease")),
		Go: runtime.Version(), Redis: redisVersion(ctx, rdb), MariaDB: mysqlVersion(ctx, mysqlDSN),
		Wrk: wrkVersion(wrkBin), Date: now.UTC().Format("2006-01-02 15:04 UTC"), LoadStart: LoadAverage(),
	}
}

// LoadAverage is the 1, 5 and 15 minute load averages, "unknown" off Linux.
func LoadAverage() string {
	f := strings.Fields(readFile("/proc/loadavg"))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// Busy says whether a load average shows other work using more than half
// the machine.
func Busy(load string, cores int) bool {
	f := strings.Fields(load)
	if len(f) == 0 {
		return false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	return err == nil && v > float64(cores)/2
}

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

func cpuModel() string {
	for _, line := range strings.Split(readFile("/proc/cpuinfo"), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

func redisVersion(ctx context.Context, rdb *redis.Client) string {
	info, err := rdb.Info(ctx, "server").Result()
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "redis_version:"); ok {
			return v
		}
	}
	return "unknown"
}

func mysqlVersion(ctx context.Context, dsn string) string {
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		return "unknown"
	}
	defer db.Close()
	var v string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&v); err != nil {
		return "unknown"
	}
	return v
}

// wrkVersion is the first line of `wrk -v`, which exits non-zero.
func wrkVersion(bin string) string {
	out, _ := exec.Command(bin, "-v").CombinedOutput()
	line, _, _ := strings.Cut(string(out), "\n")
	if f := strings.Fields(line); len(f) >= 2 && f[0] == "wrk" {
		return f[1]
	}
	return "unknown"
}

// RedisPID is the Redis server's process id if it runs on this machine, 0
// otherwise: the scale-out measure counts its CPU time to show where the
// machine's cores went.
func RedisPID(ctx context.Context, rdb *redis.Client, addr string) int {
	info, err := rdb.Info(ctx, "server").Result()
	if err != nil || !loopback(addr) {
		return 0
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "process_id:"); ok {
			pid, _ := strconv.Atoi(v)
			return localPID(pid, "redis")
		}
	}
	return 0
}

// MySQLPID is the MySQL server's process id, read from its pid file, if it
// runs on this machine; 0 otherwise.
func MySQLPID(ctx context.Context, dsn string) int {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil || (cfg.Net != "unix" && !loopback(cfg.Addr)) {
		return 0
	}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		return 0
	}
	defer db.Close()
	var file string
	if err := db.QueryRowContext(ctx, "SELECT @@pid_file").Scan(&file); err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(readFile(file)))
	return localPID(pid, "mysqld", "mariadbd")
}

// localPID is pid if this machine runs it under a command name containing
// one of names, 0 otherwise.
func localPID(pid int, names ...string) int {
	comm := readFile("/proc/" + strconv.Itoa(pid) + "/comm")
	for _, n := range names {
		if pid > 0 && strings.Contains(comm, n) {
			return pid
		}
	}
	return 0
}

func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}
