// Command server runs the seckill flash-sale server.
//
//	server [serve]   serve HTTP and persist orders (default)
//	server migrate   apply the MySQL migrations and exit
//	server seed      create the three demo sales if missing and exit
//	server verify-draw [-commitment HEX] [-user ID -secret HEX | -entry HEX] URL
//	                 recompute a published draw and check it (see README);
//	                 exits 0 if it holds, 1 if not, 3 if it holds but no
//	                 -commitment was given to hold its seed to
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	_ "net/http/pprof" // on DefaultServeMux, served only at SECKILL_PPROF_ADDR
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/app"
	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/database"
)

func main() {
	slog.SetDefault(slog.New(slog.NewJSONHandler(os.Stderr, nil)))
	redis.SetLogger(redisLogger{})
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		var verdict *exitError
		if errors.As(err, &verdict) { // verify-draw's: said to the shopper, not logged
			fmt.Fprintln(os.Stderr, verdict)
			os.Exit(verdict.status)
		}
		slog.Error("seckill stopped", "err", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	cmd := "serve"
	if len(args) > 0 {
		cmd = args[0]
	}
	switch cmd {
	case "verify-draw":
		return verifyDraw(ctx, args[1:], os.Stdout, time.Now)
	case "migrate", "seed":
		// These need only MySQL; they must not demand the server's secrets.
		dsn, err := config.Load(withDummySecrets)
		if err != nil {
			return err
		}
		if cmd == "seed" {
			return app.Seed(ctx, dsn.MySQLDSN, time.Now())
		}
		return database.Migrate(ctx, dsn.MySQLDSN)
	case "serve":
		cfg, err := config.Load(os.Getenv)
		if err != nil {
			return err
		}
		if cfg.PprofAddr != "" {
			go servePprof(cfg.PprofAddr)
		}
		a, err := app.New(ctx, cfg, app.Options{})
		if err != nil {
			return err
		}
		return a.Run(ctx)
	}
	return fmt.Errorf("unknown command %q: want serve, migrate, seed or verify-draw", cmd)
}

// servePprof serves Go's profiler on its own listener, apart from the API,
// so it is never reachable through the shop's public address.
func servePprof(addr string) {
	srv := &http.Server{Addr: addr, Handler: http.DefaultServeMux, ReadHeaderTimeout: 5 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		slog.Error("pprof listener stopped", "addr", addr, "err", err)
	}
}

// withDummySecrets reads the environment but fills the secrets that only
// serve needs, so migrate and seed run without them.
func withDummySecrets(name string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	switch name {
	case "SECKILL_ADMIN_TOKEN", "SECKILL_JWT_SECRET":
		return "unused-by-migrate-and-seed-0123456789"
	}
	return ""
}
