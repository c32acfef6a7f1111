package fault

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/harness"
	"github.com/seckill/seckill/internal/redisconn"
)

// Server is a seckill server process on a fixed loopback port; a restart
// keeps the port, the database and the Redis prefix.
type Server struct {
	*Proc
	Addr string // host:port
	URL  string // http://host:port
	API  *harness.Client
}

// StartServer starts `seckill serve` for the setup on a free port and waits
// until /healthz answers. red is the Redis it uses (the shared one, the
// shared cluster or a private one).
func StartServer(tb testing.TB, s *Setup, name string, red redisconn.Target) *Server {
	tb.Helper()
	addr := "127.0.0.1:" + strconv.Itoa(FreePort(tb))
	redisVar := "SECKILL_REDIS_ADDR=" + red.Addr
	if red.IsCluster() {
		redisVar = "SECKILL_REDIS_ADDRS=" + red.Cluster
	}
	env := append(append([]string{}, s.ProcEnv...),
		"SECKILL_HTTP_ADDR="+addr,
		"SECKILL_MYSQL_DSN="+s.DSN(tb),
		redisVar,
		"SECKILL_REDIS_PREFIX="+s.Prefix,
		"SECKILL_ADMIN_TOKEN="+s.AdminToken,
		"SECKILL_JWT_SECRET="+s.JWTSecret,
		"SECKILL_DRAW_KEY="+s.DrawKey,
		"SECKILL_CLAIM_IDLE="+s.ClaimIdle.String(),
		"SECKILL_SHUTDOWN_TIMEOUT="+s.ShutdownTimeout.String(),
		// The storms come from one IP and retry fast on purpose: these tests
		// are about crashes, not throttling or admission (test/e2e tests those).
		"SECKILL_RATE_SHOPPER=off", "SECKILL_RATE_IP=off", "SECKILL_PURCHASE_TOKENS=false", "SECKILL_ADMISSION_MULTIPLE=0",
	)
	env = append(env, s.Extra...)
	srv := &Server{
		Proc: NewProc(tb, name, filepath.Join(s.Dir, name+".log"), env, s.Binary, "serve"),
		Addr: addr, URL: "http://" + addr,
	}
	srv.API = harness.NewClient(srv.URL, s.AdminToken)
	srv.Up(tb)
	return srv
}

// Instance is the server's name in the consumer groups: the server's
// default, hostname:port, which a restart on the same port keeps.
func (s *Server) Instance() string {
	host, err := os.Hostname()
	if err != nil {
		host = "localhost"
	}
	_, port, _ := net.SplitHostPort(s.Addr)
	return net.JoinHostPort(host, port)
}

// Up starts the process (again) and waits up to 30s for /healthz to answer
// 200. It fails the test, with the server's log, if the process exits or
// never answers.
func (s *Server) Up(tb testing.TB) time.Duration {
	tb.Helper()
	return s.Proc.Up(tb, 30*time.Second, harness.HTTPOK(s.URL+"/healthz"))
}
