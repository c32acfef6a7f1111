// Package config reads the server's settings from environment variables once,
// at start-up, into a typed struct that main passes down explicitly.
package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/seckill/seckill/internal/drawkey"
	"github.com/seckill/seckill/internal/pow"
	"github.com/seckill/seckill/internal/ratelimit"
	"github.com/seckill/seckill/internal/redisconn"
)

// Config is every setting the server takes. The README lists each variable.
type Config struct {
	HTTPAddr       string           // SECKILL_HTTP_ADDR
	MySQLDSN       string           // SECKILL_MYSQL_DSN
	Redis          redisconn.Target // SECKILL_REDIS_ADDR, or SECKILL_REDIS_ADDRS for a cluster
	RedisPrefix    string           // SECKILL_REDIS_PREFIX
	AdminToken     string           // SECKILL_ADMIN_TOKEN
	JWTSecret      string           // SECKILL_JWT_SECRET
	DemoLogin      bool             // SECKILL_DEMO_LOGIN
	SessionTTL     time.Duration    // SECKILL_SESSION_TTL
	Workers        int              // SECKILL_WORKERS
	BatchSize      int              // SECKILL_BATCH_SIZE
	PersistLinger  time.Duration    // SECKILL_PERSIST_LINGER: a worker's wait after a batch that was not full
	ClaimIdle      time.Duration    // SECKILL_CLAIM_IDLE
	Instance       string           // SECKILL_INSTANCE: names this server's stream consumers; empty = hostname:port (see app.instance)
	ShutdownTimout time.Duration    // SECKILL_SHUTDOWN_TIMEOUT
	PaymentTimeout time.Duration    // SECKILL_PAYMENT_TIMEOUT
	SweepEvery     time.Duration    // SECKILL_SWEEP_INTERVAL
	ReconcileEvery time.Duration    // SECKILL_RECONCILE_INTERVAL
	RetireEvery    time.Duration    // SECKILL_RETIRE_EVERY: how often ended, settled sales are retired; 0 = never automatically
	TrustedProxies []string         // SECKILL_TRUSTED_PROXIES: comma-separated IPs or CIDRs
	RateShopper    ratelimit.Rate   // SECKILL_RATE_SHOPPER: purchases per shopper, "rate:burst" or "off"
	RateIP         ratelimit.Rate   // SECKILL_RATE_IP: purchases per client IP
	RateLogin      ratelimit.Rate   // SECKILL_RATE_LOGIN: demo logins per client IP
	PurchaseTokens bool             // SECKILL_PURCHASE_TOKENS: purchases need a token issued from the opening second
	PurchaseTTL    time.Duration    // SECKILL_PURCHASE_TOKEN_TTL
	AdmitMultiple  int              // SECKILL_ADMISSION_MULTIPLE: purchases per second per sale reaching Redis without a unit, as a multiple of stock left; 0 = off
	AdmitFloor     int              // SECKILL_ADMISSION_FLOOR: while units are left, the gate's cap per variant and second never falls below this (see internal/front/gate.go for why)
	SecureCookies  bool             // SECKILL_SECURE_COOKIES: mark cookies Secure (behind a proxy that ends TLS)
	SoldOutTTL     time.Duration    // SECKILL_SOLDOUT_TTL: how long a local sold-out mark answers without Redis; 0 = off
	PprofAddr      string           // SECKILL_PPROF_ADDR: serve Go's profiler here; empty = off
	StreamsPerIP   int              // SECKILL_SSE_PER_IP: event streams one client IP may hold open on a server; 0 = no cap
	BodyTimeout    time.Duration    // SECKILL_BODY_TIMEOUT: how long a request's body may take to arrive
	OpsCache       time.Duration    // SECKILL_OPS_CACHE: how long /readyz's verdict and /metrics' gathering are reused; 0 = not at all
	WebhookURLs    []string         // SECKILL_WEBHOOK_URL: comma-separated endpoints every event goes to; none = no events
	WebhookSecret  string           // SECKILL_WEBHOOK_SECRET: signs the events
	WebhookGiveUp  time.Duration    // SECKILL_WEBHOOK_GIVE_UP: how long an event's delivery is retried before it is marked failed
	WebhookTimeout time.Duration    // SECKILL_WEBHOOK_TIMEOUT: how long one delivery attempt may take
	PaymentSecret  string           // SECKILL_PAYMENT_SECRET: checks the payment provider's callbacks; empty = callbacks refused
	DemoPayments   bool             // SECKILL_DEMO_PAYMENTS: the shopper's simulated "Pay"; off in production
	PoW            bool             // SECKILL_POW: joining a waiting room (or entering a draw) needs a proof of work; "off" turns it off
	PoWDifficulty  int              // SECKILL_POW_DIFFICULTY: the base difficulty in leading zero bits, before adapting
	DrawKeys       drawkey.Ring     // SECKILL_DRAW_KEY: "ID:BASE64" keys, current first, that draws' seeds derive from; none = no draw sales
	DrawLegacy     []int64          // SECKILL_DRAW_LEGACY_SALES: comma-separated ids of draws made before draw keys, drawn from their stored seed; none by default
	MinReplicas    int              // SECKILL_REDIS_MIN_REPLICAS: replicas that must hold a reservation before its 202; AutoReplicas = decide from Redis (app.applyDurability)
	ReplicaTimeout time.Duration    // SECKILL_REDIS_REPLICA_TIMEOUT: how long a purchase batch waits for them
}

// DefaultPoWDifficulty is SECKILL_POW_DIFFICULTY's default.
const DefaultPoWDifficulty = 15

// AutoReplicas is MinReplicas when SECKILL_REDIS_MIN_REPLICAS is unset or
// "auto": the server decides from what Redis reports.
const AutoReplicas = -1

// ErrInvalid is returned (wrapped) for a setting that is missing or malformed.
var ErrInvalid = errors.New("config: invalid setting")

// MinSecretLen is the shortest JWT secret accepted: HS256 keys shorter than
// the hash output weaken the signature.
const MinSecretLen = 32

// Load reads the settings through getenv (os.Getenv in main, a map in tests).
// It returns an error wrapping ErrInvalid naming the variable at fault.
func Load(getenv func(string) string) (Config, error) {
	r := reader{getenv: getenv}
	c := Config{
		HTTPAddr: r.str("SECKILL_HTTP_ADDR", ":8080"),
		MySQLDSN: r.str("SECKILL_MYSQL_DSN", "seckill:seckill@tcp(127.0.0.1:3306)/seckill?parseTime=true&loc=UTC"),
		Redis: redisconn.Target{Addr: r.str("SECKILL_REDIS_ADDR", "127.0.0.1:6379"),
			Cluster: r.str("SECKILL_REDIS_ADDRS", "")},
		RedisPrefix:    r.str("SECKILL_REDIS_PREFIX", "seckill"),
		AdminToken:     r.str("SECKILL_ADMIN_TOKEN", ""),
		JWTSecret:      r.str("SECKILL_JWT_SECRET", ""),
		DemoLogin:      r.boolean("SECKILL_DEMO_LOGIN", true),
		SessionTTL:     r.duration("SECKILL_SESSION_TTL", 24*time.Hour),
		Workers:        r.integer("SECKILL_WORKERS", 2),
		BatchSize:      r.integer("SECKILL_BATCH_SIZE", 500),
		PersistLinger:  r.duration("SECKILL_PERSIST_LINGER", 300*time.Millisecond), // batches of hundreds at thousands of orders a second; in MySQL well within a second
		ClaimIdle:      r.duration("SECKILL_CLAIM_IDLE", 30*time.Second),
		Instance:       r.str("SECKILL_INSTANCE", ""),
		ShutdownTimout: r.duration("SECKILL_SHUTDOWN_TIMEOUT", 15*time.Second),
		PaymentTimeout: r.duration("SECKILL_PAYMENT_TIMEOUT", 15*time.Minute),
		SweepEvery:     r.duration("SECKILL_SWEEP_INTERVAL", 5*time.Second),
		ReconcileEvery: r.duration("SECKILL_RECONCILE_INTERVAL", 30*time.Second),
		RetireEvery:    r.duration("SECKILL_RETIRE_EVERY", time.Minute),
		TrustedProxies: r.list("SECKILL_TRUSTED_PROXIES"),
		// A person presses Buy a few times a second at most; one IP may be
		// a whole office or a carrier's NAT, so its limit is far higher.
		RateShopper:    r.rate("SECKILL_RATE_SHOPPER", ratelimit.Rate{PerSecond: 5, Burst: 10}),
		RateIP:         r.rate("SECKILL_RATE_IP", ratelimit.Rate{PerSecond: 500, Burst: 1000}),
		RateLogin:      r.rate("SECKILL_RATE_LOGIN", ratelimit.Rate{PerSecond: 5, Burst: 20}),
		PurchaseTokens: r.boolean("SECKILL_PURCHASE_TOKENS", true),
		PurchaseTTL:    r.duration("SECKILL_PURCHASE_TOKEN_TTL", 2*time.Minute),
		AdmitMultiple:  r.integer("SECKILL_ADMISSION_MULTIPLE", 10),
		AdmitFloor:     r.integer("SECKILL_ADMISSION_FLOOR", 2000),
		SecureCookies:  r.boolean("SECKILL_SECURE_COOKIES", false),
		SoldOutTTL:     r.duration("SECKILL_SOLDOUT_TTL", time.Second),
		PprofAddr:      r.str("SECKILL_PPROF_ADDR", ""),
		// A page opens one or two streams; an office behind one address
		// has many pages open, a client holding hundreds is abusing them.
		StreamsPerIP:  r.integer("SECKILL_SSE_PER_IP", 20),
		BodyTimeout:   r.duration("SECKILL_BODY_TIMEOUT", 10*time.Second),
		OpsCache:      r.duration("SECKILL_OPS_CACHE", time.Second),
		WebhookURLs:   r.list("SECKILL_WEBHOOK_URL"),
		WebhookSecret: r.str("SECKILL_WEBHOOK_SECRET", ""),
		// Receivers are down for a deploy or a night, not for days; a day
		// of retries outlasts that, and a human re-sends what is left.
		WebhookGiveUp:  r.duration("SECKILL_WEBHOOK_GIVE_UP", 24*time.Hour),
		WebhookTimeout: r.duration("SECKILL_WEBHOOK_TIMEOUT", 10*time.Second),
		PaymentSecret:  r.str("SECKILL_PAYMENT_SECRET", ""),
		DemoPayments:   r.boolean("SECKILL_DEMO_PAYMENTS", false),
		// On: a person's browser pays a fraction of a second once, while
		// waiting anyway, and a bot pays it per attempt. A shop turns it
		// off only where no person waits (a rehearsal, a test).
		PoW: r.onOff("SECKILL_POW", true),
		// 32,768 hashes expected: a median of about a tenth of a second
		// in headless Chromium on a busy 2-core machine, nine in ten
		// solves under 0.4 s (docs/benchmarks.md); 16 bits doubled
		// that, putting the slowest tenth over a second. A network pays
		// more only for work or accounts (internal/pow/price.go).
		PoWDifficulty: r.integer("SECKILL_POW_DIFFICULTY", DefaultPoWDifficulty),
		DrawKeys:      r.drawKeys("SECKILL_DRAW_KEY"),
		DrawLegacy:    r.ids("SECKILL_DRAW_LEGACY_SALES"),
		MinReplicas:   r.replicas("SECKILL_REDIS_MIN_REPLICAS"),
		// On one network a replica is a millisecond behind; 200 ms rides
		// out a hiccup and still answers a shopper well within a second.
		ReplicaTimeout: r.duration("SECKILL_REDIS_REPLICA_TIMEOUT", 200*time.Millisecond),
	}
	if r.err != nil {
		return Config{}, r.err
	}
	return c, c.validate()
}

func (c Config) validate() error {
	switch {
	case c.AdminToken == "":
		return fmt.Errorf("%w: SECKILL_ADMIN_TOKEN is required (make run generates a dev token)", ErrInvalid)
	case len(c.AdminToken) < 16:
		return fmt.Errorf("%w: SECKILL_ADMIN_TOKEN must be at least 16 characters", ErrInvalid)
	case len(c.JWTSecret) < MinSecretLen:
		return fmt.Errorf("%w: SECKILL_JWT_SECRET must be at least %d bytes", ErrInvalid, MinSecretLen)
	case c.Workers < 1 || c.BatchSize < 1:
		return fmt.Errorf("%w: SECKILL_WORKERS and SECKILL_BATCH_SIZE must be at least 1", ErrInvalid)
	case badProxy(c.TrustedProxies) != "":
		return fmt.Errorf("%w: SECKILL_TRUSTED_PROXIES: %q is neither an IP nor a CIDR", ErrInvalid, badProxy(c.TrustedProxies))
	case c.Redis.IsCluster() && clusterErr(c.Redis) != nil:
		return fmt.Errorf("%w: SECKILL_REDIS_ADDRS: %v", ErrInvalid, clusterErr(c.Redis))
	case c.AdmitMultiple < 0 || c.AdmitFloor < 0:
		return fmt.Errorf("%w: SECKILL_ADMISSION_MULTIPLE and SECKILL_ADMISSION_FLOOR must not be negative", ErrInvalid)
	case c.PersistLinger < 0 || c.PersistLinger > 500*time.Millisecond:
		return fmt.Errorf("%w: SECKILL_PERSIST_LINGER must be between 0 and 500ms, or orders reach MySQL late", ErrInvalid)
	case c.ReplicaTimeout < time.Millisecond || c.ReplicaTimeout > 2*time.Second:
		return fmt.Errorf("%w: SECKILL_REDIS_REPLICA_TIMEOUT must be between 1ms and 2s: purchases wait that long", ErrInvalid)
	case c.StreamsPerIP < 0:
		return fmt.Errorf("%w: SECKILL_SSE_PER_IP must not be negative", ErrInvalid)
	case c.BodyTimeout <= 0:
		return fmt.Errorf("%w: SECKILL_BODY_TIMEOUT must be positive", ErrInvalid)
	case c.OpsCache < 0 || c.OpsCache > 10*time.Second:
		return fmt.Errorf("%w: SECKILL_OPS_CACHE must be between 0 and 10s, or probes see a stale verdict", ErrInvalid)
	case c.SoldOutTTL < 0:
		return fmt.Errorf("%w: SECKILL_SOLDOUT_TTL must not be negative", ErrInvalid)
	case c.RetireEvery < 0:
		return fmt.Errorf("%w: SECKILL_RETIRE_EVERY must not be negative (0 turns the retirer off)", ErrInvalid)
	case badWebhook(c.WebhookURLs) > 0:
		// Not quoted: a URL may carry a password.
		return fmt.Errorf("%w: SECKILL_WEBHOOK_URL: URL number %d is not an http(s) URL of at most 255 bytes", ErrInvalid, badWebhook(c.WebhookURLs))
	case len(c.WebhookURLs) > 0 && len(c.WebhookSecret) < MinSecretLen:
		return fmt.Errorf("%w: SECKILL_WEBHOOK_SECRET must be at least %d bytes when SECKILL_WEBHOOK_URL is set", ErrInvalid, MinSecretLen)
	case c.PaymentSecret != "" && len(c.PaymentSecret) < MinSecretLen:
		return fmt.Errorf("%w: SECKILL_PAYMENT_SECRET must be at least %d bytes", ErrInvalid, MinSecretLen)
	case c.WebhookGiveUp <= 0 || c.WebhookTimeout <= 0:
		return fmt.Errorf("%w: SECKILL_WEBHOOK_GIVE_UP and SECKILL_WEBHOOK_TIMEOUT must be positive", ErrInvalid)
	case c.PoWDifficulty < 0 || c.PoWDifficulty > pow.MaxDifficulty:
		return fmt.Errorf("%w: SECKILL_POW_DIFFICULTY must be between 0 and %d bits", ErrInvalid, pow.MaxDifficulty)
	case c.PaymentTimeout <= 0 || c.SweepEvery <= 0 || c.ReconcileEvery <= 0:
		return fmt.Errorf("%w: SECKILL_PAYMENT_TIMEOUT, SECKILL_SWEEP_INTERVAL and SECKILL_RECONCILE_INTERVAL must be positive", ErrInvalid)
	}
	return nil
}

// reader keeps the first parse error so Load reads like a list of defaults.
type reader struct {
	getenv func(string) string
	err    error
}

func (r *reader) str(name, def string) string {
	if v := r.getenv(name); v != "" {
		return v
	}
	return def
}

func (r *reader) fail(name, v string, err error) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s=%q: %v", ErrInvalid, name, v, err)
	}
}

// parse reads name with conv, or def when it is unset; a value conv
// refuses is kept as Load's error.
func parse[T any](r *reader, name string, def T, conv func(string) (T, error)) T {
	v := r.getenv(name)
	if v == "" {
		return def
	}
	x, err := conv(v)
	if err != nil {
		r.fail(name, v, err)
	}
	return x
}

func (r *reader) boolean(name string, def bool) bool {
	return parse(r, name, def, strconv.ParseBool)
}

// onOff reads "on" or "off", or any form strconv.ParseBool takes.
func (r *reader) onOff(name string, def bool) bool {
	switch r.getenv(name) {
	case "on":
		return true
	case "off":
		return false
	}
	return r.boolean(name, def)
}

func (r *reader) integer(name string, def int) int {
	return parse(r, name, def, strconv.Atoi)
}

func (r *reader) duration(name string, def time.Duration) time.Duration {
	return parse(r, name, def, time.ParseDuration)
}

func (r *reader) list(name string) []string {
	var out []string
	for _, v := range strings.Split(r.getenv(name), ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

func clusterErr(t redisconn.Target) error {
	_, err := t.Options(0)
	return err
}

// badWebhook returns the place (from 1) of the first endpoint that is not
// an absolute http(s) URL short enough for the outbox's column; 0 if none.
func badWebhook(urls []string) int {
	for i, u := range urls {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" || len(u) > 255 {
			return i + 1
		}
	}
	return 0
}

func badProxy(proxies []string) string {
	for _, p := range proxies {
		if _, _, err := net.ParseCIDR(p); err != nil && net.ParseIP(p) == nil {
			return p
		}
	}
	return ""
}

// replicas reads a count of replicas, or "auto" (or nothing) for
// AutoReplicas.
func (r *reader) replicas(name string) int {
	v := r.getenv(name)
	if v == "" || v == "auto" {
		return AutoReplicas
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		r.fail(name, v, errors.New(`want a count of replicas (0 or more) or "auto"`))
	}
	return n
}

// rate parses "rate:burst" (requests per second, requests at once) or "off".
func (r *reader) rate(name string, def ratelimit.Rate) ratelimit.Rate {
	v := r.getenv(name)
	switch v {
	case "":
		return def
	case "off":
		return ratelimit.Rate{}
	}
	a, b, ok := strings.Cut(v, ":")
	perSec, err1 := strconv.ParseFloat(a, 64)
	burst, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || perSec <= 0 || burst < 1 {
		r.fail(name, v, errors.New(`want "rate:burst", e.g. "5:10", or "off"`))
	}
	return ratelimit.Rate{PerSecond: perSec, Burst: burst}
}
