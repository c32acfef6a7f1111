package testenv

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// PrivateRedis starts a redis-server of this test's own on a free port,
// with args added to its command line, and returns its address; cleanup
// stops it. For tests that must block, flush or reconfigure a whole Redis,
// which the shared one, used by every other test at once, must never see.
func PrivateRedis(tb testing.TB, args ...string) string {
	tb.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		tb.Fatalf("testenv: this test starts a private redis-server, and none is on the PATH (apt-get install redis-server)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir := tb.TempDir()
	argv := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", dir, "--logfile", filepath.Join(dir, "redis.log")}, args...)
	cmd := exec.Command(bin, argv...)
	if err := cmd.Start(); err != nil {
		tb.Fatalf("testenv: start redis-server: %v", err)
	}
	tb.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	addr := "127.0.0.1:" + strconv.Itoa(port)
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	ok := Eventually(10*time.Second, func() bool { return rdb.Ping(context.Background()).Err() == nil })
	if !ok {
		log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
		tb.Fatalf("testenv: private redis-server on %s does not answer; its log:\n%s", addr, log)
	}
	return addr
}
