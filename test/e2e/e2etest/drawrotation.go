package e2etest

import (
	"log/slog"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/drawkey"
	"github.com/seckill/seckill/internal/testenv"
)

// Sibling starts a server on s's MySQL database with other draw keys and a
// Redis prefix of its own, so its fleet jobs run whatever s's do: the
// draw job of each runs on every period.
func (s *Server) Sibling(tb testing.TB, clk interface{ Now() time.Time }, log *slog.Logger, keys drawkey.Ring) *Server {
	tb.Helper()
	cfg := s.Cfg
	cfg.HTTPAddr, cfg.DrawKeys = "127.0.0.1:0", keys
	_, cfg.RedisPrefix = testenv.RedisOn(tb, cfg.Redis)
	return Launch(tb, clk, log, cfg, s.Db)
}
