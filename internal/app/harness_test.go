package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/app"
	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/testenv"
)

const (
	adminToken = "test-admin-token-0123456789"
	jwtSecret  = "test-jwt-secret-0123456789abcdef0123456789"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// clock is the server's injected clock; tests move it.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time)     { c.mu.Lock(); defer c.mu.Unlock(); c.t = t }
func (c *clock) Add(d time.Duration) { c.Set(c.Now().Add(d)) }
func newClock(t time.Time) *clock    { return &clock{t: t} }

// noPersisters configures a server that takes orders but writes none to
// MySQL: they wait in Redis until a server with persisters starts.
func noPersisters(c *config.Config) { c.Workers = 0 }

func quiet() *slog.Logger             { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
func mustJSON(v any) []byte           { b, _ := json.Marshal(v); return b }
func itoa(n int64) string             { return strconv.FormatInt(n, 10) }
func (s *server) url(p string) string { return "http://" + s.addr + p }

// server is a whole seckill server started in-process on a free port.
type server struct {
	addr string
	cfg  config.Config
	db   testenv.DB
}

type option func(*config.Config)

// start runs the app against this test's MySQL database and Redis prefix
// (or redisAddr when given) until the test ends.
func start(tb testing.TB, clk interface{ Now() time.Time }, opts ...option) *server {
	tb.Helper()
	return startLogged(tb, clk, quiet(), opts...)
}

// startLogged is start with the server's logs going to log.
func startLogged(tb testing.TB, clk interface{ Now() time.Time }, log *slog.Logger, opts ...option) *server {
	tb.Helper()
	db := testenv.MySQL(tb)
	cfg := config.Config{HTTPAddr: "127.0.0.1:0", MySQLDSN: db.DSN, Redis: redisconn.Target{Addr: testenv.RedisAddr(tb)},
		AdminToken: adminToken, JWTSecret: jwtSecret, DemoLogin: true, DemoPayments: true, SessionTTL: time.Hour,
		Workers: 2, BatchSize: 200, ClaimIdle: time.Second, ShutdownTimout: 5 * time.Second,
		// Reconciliation stays out of the way of tests that drift Redis on
		// purpose; they call the endpoint themselves.
		// Tests move the clock past sales' ends; unpaid orders must not time
		// out under them unless a test asks for a payment timeout.
		PaymentTimeout: 100 * 365 * 24 * time.Hour, SweepEvery: 100 * time.Millisecond, ReconcileEvery: time.Hour,
		// The proof of work is on, as it is by default: tests join rooms as
		// clients do, solving a challenge (server.join), at a difficulty
		// that costs microseconds, -race included.
		PoW: true, PoWDifficulty: testPowBits, DrawKeys: testDrawKeys}
	for _, o := range opts {
		o(&cfg)
	}
	// After the options: the keys are cleaned up on the Redis they chose.
	if cfg.RedisPrefix == "" {
		_, cfg.RedisPrefix = testenv.RedisOn(tb, cfg.Redis)
	}
	return launch(tb, clk, log, cfg, db)
}

// on runs the server on Redis target t (a single Redis or a cluster).
func on(t redisconn.Target) option { return func(c *config.Config) { c.Redis = t } }

// twin starts a second server sharing s's MySQL database and Redis keys, as
// a second instance behind a load balancer would.
func (s *server) twin(tb testing.TB, clk interface{ Now() time.Time }) *server {
	tb.Helper()
	cfg := s.cfg
	cfg.HTTPAddr = "127.0.0.1:0"
	return launch(tb, clk, quiet(), cfg, s.db)
}

// walled is a clock that also moves the server's real time (app.Options.Wall).
type walled interface{ Wall() time.Time }

func launch(tb testing.TB, clk interface{ Now() time.Time }, log *slog.Logger, cfg config.Config, db testenv.DB) *server {
	tb.Helper()
	opts := app.Options{Now: clk.Now, Logger: log}
	if w, ok := clk.(walled); ok {
		opts.Wall = w.Wall
	}
	a, err := app.New(context.Background(), cfg, opts)
	if err != nil {
		tb.Fatalf("start server: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	tb.Cleanup(func() {
		// A connection the client dialled for a request another connection
		// served stays open unused; the server's shutdown waits up to 5 s
		// for such a connection's first request, as long as the test's whole
		// shutdown timeout. Closing the client's idle connections ends them.
		client.CloseIdleConnections()
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("server stopped with %v", err)
		}
	})
	return &server{addr: a.Addr(), cfg: cfg, db: db}
}

// reply is a decoded answer.
type reply struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

func (r reply) errCode() string {
	e, _ := r.body["error"].(map[string]any)
	s, _ := e["code"].(string)
	return s
}

func (r reply) str(k string) string { s, _ := r.body[k].(string); return s }

var client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 256}}

// call sends a request; auth is a bearer token ("" for none); body is sent
// as is when it is a string or []byte, else JSON-encoded.
func (s *server) call(tb testing.TB, method, path, auth string, body any, hdr ...string) reply {
	tb.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewBufferString(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		rd = bytes.NewReader(mustJSON(b))
	}
	req, err := http.NewRequest(method, s.url(path), rd)
	if err != nil {
		tb.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", "Bearer "+auth)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := reply{status: resp.StatusCode, header: resp.Header, raw: string(raw)}
	_ = json.Unmarshal(raw, &r.body)
	return r
}

// login signs a shopper in through the demo login and returns the token.
func (s *server) login(tb testing.TB, user string) string {
	tb.Helper()
	r := s.call(tb, "POST", "/api/v1/session", "", map[string]string{"user_id": user})
	if r.status != 200 || r.str("token") == "" {
		tb.Fatalf("login %s: %d %s", user, r.status, r.raw)
	}
	return r.str("token")
}

// sale creates a sale through the admin API and returns its id.
func (s *server) sale(tb testing.TB, total, limit int, starts, ends time.Time) int64 {
	tb.Helper()
	r := s.call(tb, "POST", "/api/v1/admin/items", adminToken, map[string]any{
		"name": "Aurora sneakers, limited run", "description": "Limited stock: first come, first served.", "price_cents": 12900, "stock_total": total,
		"per_user_limit": limit, "starts_at": starts.Format(time.RFC3339Nano), "ends_at": ends.Format(time.RFC3339Nano),
	})
	if r.status != 201 {
		tb.Fatalf("create sale: %d %s", r.status, r.raw)
	}
	return int64(r.body["id"].(float64))
}

// stats reads the admin stats of a sale.
func (s *server) stats(tb testing.TB, id int64) reply {
	tb.Helper()
	return s.call(tb, "GET", "/api/v1/admin/items/"+itoa(id)+"/stats", adminToken, nil)
}

// settle waits until no order of the sale is pending and returns the stats.
func (s *server) settle(tb testing.TB, id int64) reply {
	tb.Helper()
	var r reply
	if !testenv.Eventually(20*time.Second, func() bool {
		r = s.stats(tb, id)
		return r.status == 200 && r.body["orders_pending"].(float64) == 0
	}) {
		tb.Fatalf("orders still pending after 20s: %s", r.raw)
	}
	return r
}

// proxy forwards TCP to target until closed; closing it makes the target
// unreachable for whoever dials the proxy, as a crashed server would.
type proxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newProxy(tb testing.TB, target string) *proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &proxy{ln: ln}
	go p.serve(target)
	tb.Cleanup(p.Close)
	return p
}

func (p *proxy) Addr() string { return p.ln.Addr().String() }

func (p *proxy) serve(target string) {
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", target)
		if err != nil {
			in.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, in, out)
		p.mu.Unlock()
		go func() { io.Copy(out, in); out.Close() }()
		go func() { io.Copy(in, out); in.Close() }()
	}
}

// Close stops accepting and cuts every open connection.
func (p *proxy) Close() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}

// buyWithToken purchases as a client of a server that requires purchase
// tokens: fetch one, then buy with it.
func (s *server) buyWithToken(tb testing.TB, itemID int64, shopper string) reply {
	tb.Helper()
	tok := mintToken(tb, shopper)
	pt := s.call(tb, "GET", "/api/v1/items/"+itoa(itemID)+"/purchase-token", tok, nil)
	if pt.status != 200 {
		tb.Fatalf("purchase token: %d %s", pt.status, pt.raw)
	}
	return s.call(tb, "POST", "/api/v1/items/"+itoa(itemID)+"/purchase", tok, nil, "X-Purchase-Token", pt.str("token"))
}
