package faulttest_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/seckill/seckill/internal/faulttest"
)

// env is what TestMain found: the shared services and the built server.
var env faulttest.Env

// TestMain builds the server binary once for every test in the package; the
// tests run it as real processes so they can kill -9 it.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "seckill-faulttest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "faulttest:", err)
		os.Exit(1)
	}
	bin, err := faulttest.BuildServer(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "faulttest:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	env = faulttest.Env{
		MySQLDSN:     os.Getenv("SECKILL_TEST_MYSQL_DSN"),
		RedisAddr:    os.Getenv("SECKILL_TEST_REDIS_ADDR"),
		RedisCluster: os.Getenv("SECKILL_TEST_REDIS_CLUSTER"),
		Binary:       bin,
		ProcEnv:      faulttest.ChildEnv(os.Environ()),
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
