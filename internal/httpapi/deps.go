package httpapi

import (
	"context"
	"io/fs"
	"log/slog"
	"time"

	"github.com/seckill/seckill/internal/ratelimit"
	"github.com/seckill/seckill/internal/tally"
	"github.com/seckill/seckill/internal/token"
)

// Deps is what the server is built from: the domain parts, grouped by the
// handlers that use them, each as the small interface those handlers
// declare; and the settings. The groups are embedded, so a handler reads
// d.Catalog or d.Front whichever group holds it.
type Deps struct {
	Stores
	Services
	Rooms
	Admin
	Shop
	Proofs
	Ops
	Clock
	Web    fs.FS // the pages, and their files under static/
	Logger *slog.Logger
	Settings
}

// Stores are what the handlers read directly; changes go through Services.
type Stores struct {
	Catalog SaleReader  // catalog.Store
	Stock   StockReader // stock.Store
	Orders  OrderReader // order.Store
}

// Services change sales and orders, and answer what the stores cannot alone.
type Services struct {
	Sales   SaleService // sale.Service
	Syncer  SyncAdmin   // stocksync.Syncer
	Draws   Draws       // draw.Service: draw sales' entries and draws
	Reports Reports     // report.Builder: post-sale reports from MySQL
}

// Rooms are the waiting rooms of the sales that have one.
type Rooms struct {
	Room       Room        // room.Store
	RoomEvents RoomEvents  // room.Watcher: their live standings
	Unpaid     UnpaidUnits // room.UnpaidUnits: what can still come back to a sold-out room; nil: never known
}

// Admin is what only the admin's routes use.
type Admin struct {
	Events      Events            // dashboard.Hub: the admin dashboard's live snapshots
	Audit       AuditLog          // audit.Store: the admin actions recorded
	Webhooks    WebhookAdmin      // webhook.Admin: the events on their way to the shop's systems
	Revocations token.Revocations // revoke.Store: admin sessions signed out
}

// Shop is what the purchase and the order pages use besides the stores.
type Shop struct {
	Front     Front              // front.Front: the purchase's marks and gate, then sale.Service
	Limiter   *ratelimit.Limiter // nil: no rate limits
	Counters  *tally.Set         // per-sale counts for the reports; nil: none
	OrderFeed OrderFeed          // orderfeed.Feed: wakes the streams following an order; nil: they look every few seconds
	// NewOrderID names a reservation before the script runs.
	NewOrderID func() string
}

// Proofs price and spend the proofs of work.
type Proofs struct {
	PowPricer PowPricer // pow.Pricer: the proof of work's difficulty; nil: Settings.PowDifficulty for everyone
	PowLedger PowLedger // pow.Ledger: proofs spent; needed when Settings.RequireProofOfWork
}

// Ops is what the operators' routes and the server's life need.
type Ops struct {
	Metrics  Metrics                                     // metrics.Set: what the handlers count, and GET /metrics; zero: nothing counted
	Ready    func(ctx context.Context) map[string]string // failing checks by name
	Stopping <-chan struct{}                             // closed when the server shuts down: ends event streams
}

// Clock is the time the handlers decide with.
type Clock struct {
	Now  func() time.Time
	Wall func() time.Time // real time: payment signatures' age; time.Now if nil
}

// StockReader is the Redis side the handlers read (stock.Store).
type StockReader interface {
	StockLevels
	PendingOrders
}

// SaleService is the life of sales and orders (sale.Service).
type SaleService interface {
	OrderLife
	SaleChanger
	Warmer
	Retirer
	PaymentSettler
	OrderAdmin
}

// Settings are the server's switches and limits.
type Settings struct {
	AdminToken string
	// JWTSecret keys every token the server issues (internal/token);
	// shoppers' sessions live for SessionTTL.
	JWTSecret  string
	SessionTTL time.Duration
	DemoLogin  bool
	// TrustedProxies are the proxies whose X-Forwarded-For names the client
	// IP. Empty (the default) trusts no header: the peer address counts.
	TrustedProxies []string
	Rates          Rates
	// RequirePurchaseToken makes purchases need a token issued from the
	// opening second (GET .../purchase-token); PurchaseTokenTTL is its life.
	RequirePurchaseToken bool
	PurchaseTokenTTL     time.Duration
	// SecureCookies marks session cookies Secure even when this server
	// itself speaks plain HTTP: behind a proxy that ends TLS.
	SecureCookies bool
	// BodyTimeout is how long a request's body may take to arrive; 0: no
	// limit.
	BodyTimeout time.Duration
	// OpsCache is how long /readyz's verdict is reused, so a flood of
	// probes costs the stores nothing; 0: none. (Metrics.Page keeps the
	// metrics' gathering as long: internal/app builds it so.)
	OpsCache time.Duration
	// StreamsPerIP caps the event streams one client holds open on this
	// server; 0: no cap.
	StreamsPerIP int
	// DemoPayments lets shoppers pay with a button (no money moves); off,
	// only the payment provider's callback pays.
	DemoPayments bool
	// PaymentSecret checks the payment provider's callbacks; empty: they
	// are refused.
	PaymentSecret string
	// RequireProofOfWork makes joining a waiting room (and every route
	// guarded by proofOfWork) need a solved challenge; PowDifficulty is the
	// base difficulty, in leading zero bits.
	RequireProofOfWork bool
	PowDifficulty      int
}

// Rates are the limits the server applies.
type Rates struct {
	Shopper, IP, Login ratelimit.Rate
}
