package main

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/testenv"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestCommands runs main's commands as make run does: migrate, seed (twice:
// it must not duplicate), then serve until the signal context ends.
// Serial: main reads its configuration from the environment, so the test
// sets it with t.Setenv, which is process-wide (and panics in parallel tests).
func TestCommands(t *testing.T) {
	db := testenv.MySQL(t)
	_, prefix := testenv.Redis(t)
	addr := freeAddr(t)
	t.Setenv("SECKILL_MYSQL_DSN", db.DSN)
	t.Setenv("SECKILL_REDIS_ADDR", testenv.RedisAddr(t))
	t.Setenv("SECKILL_REDIS_PREFIX", prefix)
	t.Setenv("SECKILL_HTTP_ADDR", addr)
	t.Setenv("SECKILL_ADMIN_TOKEN", "") // a developer may have the dev one exported
	ctx := context.Background()
	for _, cmd := range []string{"migrate", "seed", "seed"} {
		if err := run(ctx, []string{cmd}); err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
	}
	items, err := catalog.NewStore(db.Gorm).List(ctx)
	if err != nil || len(items) != 3 {
		t.Fatalf("after seeding twice: %d items, %v; want the 3 demo sales", len(items), err)
	}
	if err := run(ctx, []string{"serve"}); err == nil {
		t.Fatal("serve started without SECKILL_ADMIN_TOKEN")
	}
	if err := run(ctx, []string{"bogus"}); err == nil {
		t.Fatal("unknown command accepted")
	}

	t.Setenv("SECKILL_ADMIN_TOKEN", "admin-token-0123456789")
	t.Setenv("SECKILL_JWT_SECRET", "jwt-secret-0123456789abcdef0123456789")
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- run(sctx, []string{"serve"}) }()
	waitListening(t, addr)
	stop() // what SIGTERM does through signal.NotifyContext
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve after stop: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop within 20s of the signal")
	}
}

func waitListening(t *testing.T, addr string) {
	t.Helper()
	testenv.WaitFor(t, 20*time.Second, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	}, "server not listening on %s", addr)
}
