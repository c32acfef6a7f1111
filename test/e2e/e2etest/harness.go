package e2etest

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

// The admin token and JWT secret every test server is started with.
const (
	AdminToken = "test-admin-token-0123456789"
	JWTSecret  = "test-jwt-secret-0123456789abcdef0123456789"
)

// T0 is where test clocks start unless a test needs another time.
var T0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// Clock is the server's injected clock; tests move it.
type Clock struct {
	Mu sync.Mutex
	T  time.Time
}

func (c *Clock) Now() time.Time { c.Mu.Lock(); defer c.Mu.Unlock(); return c.T }

func (c *Clock) Set(t time.Time) { c.Mu.Lock(); defer c.Mu.Unlock(); c.T = t }

func (c *Clock) Add(d time.Duration) { c.Set(c.Now().Add(d)) }

// NewClock is a Clock stopped at t.
func NewClock(t time.Time) *Clock { return &Clock{T: t} }

// NoPersisters configures a server that takes orders but writes none to
// MySQL: they wait in Redis until a server with persisters starts.
func NoPersisters(c *config.Config) { c.Workers = 0 }

// Quiet is a logger that drops everything, for servers whose logs no
// test reads.
func Quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// MustJSON is v as JSON; tests marshal only values that cannot fail.
func MustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

// Itoa spells an id for a path.
func Itoa(n int64) string { return strconv.FormatInt(n, 10) }

// URL is the full address of path p on s.
func (s *Server) URL(p string) string { return "http://" + s.Addr + p }

// Server is a whole seckill server started in-process on a free port.
type Server struct {
	Addr string
	Cfg  config.Config
	Db   testenv.DB
}

// Option changes the configuration Start gives a server.
type Option func(*config.Config)

// Start runs the app against this test's MySQL database and Redis prefix
// (or redisAddr when given) until the test ends.
func Start(tb testing.TB, clk interface{ Now() time.Time }, opts ...Option) *Server {
	tb.Helper()
	return StartLogged(tb, clk, Quiet(), opts...)
}

// StartLogged is start with the server's logs going to log.
func StartLogged(tb testing.TB, clk interface{ Now() time.Time }, log *slog.Logger, opts ...Option) *Server {
	tb.Helper()
	db := testenv.MySQL(tb)
	cfg := config.Config{HTTPAddr: "127.0.0.1:0", MySQLDSN: db.DSN, Redis: redisconn.Target{Addr: testenv.RedisAddr(tb)},
		AdminToken: AdminToken, JWTSecret: JWTSecret, DemoLogin: true, DemoPayments: true, SessionTTL: time.Hour,
		Workers: 2, BatchSize: 200, ClaimIdle: time.Second, ShutdownTimout: 5 * time.Second,
		// Reconciliation stays out of the way of tests that drift Redis on
		// purpose; they call the endpoint themselves.
		// Tests move the clock past sales' ends; unpaid orders must not time
		// out under them unless a test asks for a payment timeout.
		PaymentTimeout: 100 * 365 * 24 * time.Hour, SweepEvery: 100 * time.Millisecond, ReconcileEvery: time.Hour,
		// The proof of work is on, as it is by default: tests join rooms as
		// clients do, solving a challenge (server.join), at a difficulty
		// that costs microseconds, -race included.
		PoW: true, PoWDifficulty: TestPowBits, DrawKeys: TestDrawKeys}
	for _, o := range opts {
		o(&cfg)
	}
	// After the options: the keys are cleaned up on the Redis they chose.
	if cfg.RedisPrefix == "" {
		_, cfg.RedisPrefix = testenv.RedisOn(tb, cfg.Redis)
	}
	return Launch(tb, clk, log, cfg, db)
}

// On runs the server on Redis target t (a single Redis or a cluster).
func On(t redisconn.Target) Option { return func(c *config.Config) { c.Redis = t } }

// Twin starts a second server sharing s's MySQL database and Redis keys, as
// a second instance behind a load balancer would.
func (s *Server) Twin(tb testing.TB, clk interface{ Now() time.Time }) *Server {
	tb.Helper()
	cfg := s.Cfg
	cfg.HTTPAddr = "127.0.0.1:0"
	return Launch(tb, clk, Quiet(), cfg, s.Db)
}

// Walled is a clock that also moves the server's real time (app.Options.Wall).
type Walled interface{ Wall() time.Time }

// Launch starts a server with exactly cfg on database db, stopped when tb
// ends.
func Launch(tb testing.TB, clk interface{ Now() time.Time }, log *slog.Logger, cfg config.Config, db testenv.DB) *Server {
	tb.Helper()
	opts := app.Options{Now: clk.Now, Logger: log}
	if w, ok := clk.(Walled); ok {
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
		Client.CloseIdleConnections()
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("server stopped with %v", err)
		}
	})
	return &Server{Addr: a.Addr(), Cfg: cfg, Db: db}
}

// Reply is a decoded answer.
type Reply struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    string
}

// ErrCode is the error code of an error answer, "" otherwise.
func (r Reply) ErrCode() string {
	e, _ := r.Body["error"].(map[string]any)
	s, _ := e["code"].(string)
	return s
}

// Str is the string field k of the answer's JSON body.
func (r Reply) Str(k string) string { s, _ := r.Body[k].(string); return s }

// Client is the HTTP client every test request goes through.
var Client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 256}}

// Call sends a request; auth is a bearer token ("" for none); body is sent
// as is when it is a string or []byte, else JSON-encoded.
func (s *Server) Call(tb testing.TB, method, path, auth string, body any, hdr ...string) Reply {
	tb.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewBufferString(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		rd = bytes.NewReader(MustJSON(b))
	}
	req, err := http.NewRequest(method, s.URL(path), rd)
	if err != nil {
		tb.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", "Bearer "+auth)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := Client.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := Reply{Status: resp.StatusCode, Header: resp.Header, Raw: string(raw)}
	_ = json.Unmarshal(raw, &r.Body)
	return r
}

// Login signs a shopper in through the demo login and returns the token.
func (s *Server) Login(tb testing.TB, user string) string {
	tb.Helper()
	r := s.Call(tb, "POST", "/api/v1/session", "", map[string]string{"user_id": user})
	if r.Status != 200 || r.Str("token") == "" {
		tb.Fatalf("login %s: %d %s", user, r.Status, r.Raw)
	}
	return r.Str("token")
}

// Sale creates a sale through the admin API and returns its id.
func (s *Server) Sale(tb testing.TB, total, limit int, starts, ends time.Time) int64 {
	tb.Helper()
	r := s.Call(tb, "POST", "/api/v1/admin/items", AdminToken, map[string]any{
		"name": "Aurora sneakers, limited run", "description": "Limited stock: first come, first served.", "price_cents": 12900, "stock_total": total,
		"per_user_limit": limit, "starts_at": starts.Format(time.RFC3339Nano), "ends_at": ends.Format(time.RFC3339Nano),
	})
	if r.Status != 201 {
		tb.Fatalf("create sale: %d %s", r.Status, r.Raw)
	}
	return int64(r.Body["id"].(float64))
}

// Stats reads the admin stats of a sale.
func (s *Server) Stats(tb testing.TB, id int64) Reply {
	tb.Helper()
	return s.Call(tb, "GET", "/api/v1/admin/items/"+Itoa(id)+"/stats", AdminToken, nil)
}

// Settle waits until no order of the sale is pending and returns the stats.
func (s *Server) Settle(tb testing.TB, id int64) Reply {
	tb.Helper()
	var r Reply
	if !testenv.Eventually(20*time.Second, func() bool {
		r = s.Stats(tb, id)
		return r.Status == 200 && r.Body["orders_pending"].(float64) == 0
	}) {
		tb.Fatalf("orders still pending after 20s: %s", r.Raw)
	}
	return r
}

// Proxy forwards TCP to target until closed; closing it makes the target
// unreachable for whoever dials the proxy, as a crashed server would.
type Proxy struct {
	Ln    net.Listener
	Mu    sync.Mutex
	Conns []net.Conn
}

// NewProxy forwards a listener of its own to target until tb ends.
func NewProxy(tb testing.TB, target string) *Proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &Proxy{Ln: ln}
	go p.Serve(target)
	tb.Cleanup(p.Close)
	return p
}

func (p *Proxy) Addr() string { return p.Ln.Addr().String() }

func (p *Proxy) Serve(target string) {
	for {
		in, err := p.Ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", target)
		if err != nil {
			in.Close()
			continue
		}
		p.Mu.Lock()
		p.Conns = append(p.Conns, in, out)
		p.Mu.Unlock()
		go func() { io.Copy(out, in); out.Close() }()
		go func() { io.Copy(in, out); in.Close() }()
	}
}

// Close stops accepting and cuts every open connection.
func (p *Proxy) Close() {
	p.Ln.Close()
	p.Mu.Lock()
	defer p.Mu.Unlock()
	for _, c := range p.Conns {
		c.Close()
	}
}

// BuyWithToken purchases as a client of a server that requires purchase
// tokens: fetch one, then buy with it.
func (s *Server) BuyWithToken(tb testing.TB, itemID int64, shopper string) Reply {
	tb.Helper()
	tok := MintToken(tb, shopper)
	pt := s.Call(tb, "GET", "/api/v1/items/"+Itoa(itemID)+"/purchase-token", tok, nil)
	if pt.Status != 200 {
		tb.Fatalf("purchase token: %d %s", pt.Status, pt.Raw)
	}
	return s.Call(tb, "POST", "/api/v1/items/"+Itoa(itemID)+"/purchase", tok, nil, "X-Purchase-Token", pt.Str("token"))
}
