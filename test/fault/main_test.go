// Package fault holds the fault-injection tests: they run the real seckill
// binary as child processes, next to private Redis and MariaDB processes
// when a test must crash or stop one, drive purchase storms at them over
// HTTP, kill those processes mid-storm and then check the invariants that
// docs/how-it-works.md promises. Every file is a _test.go file: this is test
// code, kept out of the domain packages and out of every non-test build. The files
// named *proc_test.go, storm_test.go and invariants_test.go start, signal
// and wait for processes and check the stores; the tests decide when.
package fault

import (
	"fmt"
	"os"
	"testing"

	"github.com/seckill/seckill/internal/harness"
)

// The tests do not call t.Parallel, on purpose. Each starts real processes
// (one to three servers, a private MariaDB, Redis or Redis Cluster) and
// drives a storm at a fixed rate at them, and what it checks depends on
// those processes getting the CPU on time: a server must exit within
// SECKILL_SHUTDOWN_TIMEOUT plus 3 s of SIGTERM, a cluster master is failed
// over after a cluster-node-timeout of 1 s, no purchase may get a 503 while
// only MySQL is down. On the 2-core machines this runs on, two such tests at
// once starve each other's servers and inject faults the test did not ask
// for. The harness would allow it: every test has its own database, Redis
// prefix, ports and directory.

// env is what TestMain found: the shared services and the built server.
var env Env

// TestMain builds the server binary once for every test in the package; the
// tests run it as real processes so they can kill -9 it.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "seckill-fault-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "fault:", err)
		os.Exit(1)
	}
	bin, err := BuildServer(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fault:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	env = Env{
		MySQLDSN:     os.Getenv("SECKILL_TEST_MYSQL_DSN"),
		RedisAddr:    os.Getenv("SECKILL_TEST_REDIS_ADDR"),
		RedisCluster: os.Getenv("SECKILL_TEST_REDIS_CLUSTER"),
		Binary:       bin,
		ProcEnv:      harness.ChildEnv(os.Environ()),
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
