// Package fault holds the fault-injection tests: they run the real seckill
// binary as child processes, next to private Redis and MariaDB processes
// when a test must crash or stop one, drive purchase storms at them over
// HTTP, kill those processes mid-storm and then check the invariants the
// README promises. Every file is a _test.go file: this is test code, kept
// out of the domain packages and out of every non-test build. The files
// named *proc_test.go, storm_test.go and invariants_test.go start, signal
// and wait for processes and check the stores; the tests decide when.
package fault

import (
	"fmt"
	"os"
	"testing"
)

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
		ProcEnv:      ChildEnv(os.Environ()),
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
