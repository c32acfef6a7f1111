package httpapi

import (
	"cmp"
	"context"
	"crypto/sha256"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/admission"
	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/order"
	"github.com/seckill/seckill/internal/ratelimit"
	"github.com/seckill/seckill/internal/soldout"
	"github.com/seckill/seckill/internal/stock"
	"github.com/seckill/seckill/internal/sync/stocksync"
)

// Catalog is the MySQL side of sales the handlers need.
type Catalog interface {
	Create(ctx context.Context, it catalog.Item) (catalog.Item, error)
	Get(ctx context.Context, id int64) (catalog.Item, error)
	List(ctx context.Context) ([]catalog.Item, error)
}

// Stock is the Redis side of sales the handlers need.
type Stock interface {
	Reserve(ctx context.Context, r stock.Request) (stock.Reservation, error)
	Levels(ctx context.Context, itemIDs []int64) (map[int64]int64, error)
	BuyerOf(ctx context.Context, itemIDs []int64, userID string) (map[int64]keyspace.Buyer, error)
	WarmItems(ctx context.Context) ([]int64, error)
}

// Orders reads persisted orders.
type Orders interface {
	Get(ctx context.Context, id string) (order.Order, error)
	ListByUser(ctx context.Context, userID string) ([]order.Order, error)
	Pay(ctx context.Context, id, userID string) (order.Order, error)
}

// Syncer keeps Redis in step with MySQL.
type Syncer interface {
	Warm(ctx context.Context, itemID int64) error
	Stats(ctx context.Context, itemID int64) (stocksync.Stats, error)
	Reconcile(ctx context.Context) (stocksync.Report, error)
}

// Sales changes sales and their orders in both stores (sale.Service).
type Sales interface {
	Create(ctx context.Context, it catalog.Item) (catalog.Item, error)
	Update(ctx context.Context, id int64, p catalog.Patch) (catalog.Item, error)
	Reserve(ctx context.Context, r stock.Request) (stock.Reservation, error)
	Warmed(ctx context.Context, itemID int64, op func(ctx context.Context) error) error
	Pay(ctx context.Context, orderID, userID string) (order.Order, error)
	Cancel(ctx context.Context, orderID, userID, reason string) (order.Order, error)
}

// Deps is everything the server is built from.
type Deps struct {
	Catalog    Catalog
	Stock      Stock
	Orders     Orders
	Syncer     Syncer
	Sales      Sales
	Tokens     *Tokens
	AdminToken string
	DemoLogin  bool
	Now        func() time.Time
	NewOrderID func() string
	Ready      func(ctx context.Context) map[string]string // failing checks by name
	Metrics    *Metrics
	Web        fs.FS           // the pages, and their files under static/
	Events     Events          // the admin dashboard's live snapshots
	Stopping   <-chan struct{} // closed when the server shuts down: ends event streams
	// TrustedProxies are the proxies whose X-Forwarded-For names the client
	// IP. Empty (the default) trusts no header: the peer address counts.
	TrustedProxies []string
	Logger         *slog.Logger
	Limiter        *ratelimit.Limiter // nil: no rate limits
	Rates          Rates
	// RequirePurchaseToken makes purchases need a token issued from the
	// opening second (GET .../purchase-token); PurchaseTokenTTL is its life.
	RequirePurchaseToken bool
	PurchaseTokenTTL     time.Duration
	Room                 Room            // the waiting rooms of sales that have one
	RoomEvents           RoomEvents      // their live standings
	Gate                 *admission.Gate // nil: every purchase reaches Redis
	SoldOut              *soldout.Marks  // nil: no local sold-out marks
	// SecureCookies marks session cookies Secure even when this server
	// itself speaks plain HTTP: behind a proxy that ends TLS.
	SecureCookies bool
}

// secure says whether cookies must be Secure for this request.
func (s *Server) secure(c *gin.Context) bool { return s.SecureCookies || c.Request.TLS != nil }

// Rates are the limits the server applies.
type Rates struct {
	Shopper, IP, Login ratelimit.Rate
}

// Server holds the handlers.
type Server struct {
	Deps
	tokens      *Tokens
	adminDigest [32]byte
	adminSess   adminSessions
	purchaseTok purchaseTokens
	// admissionTok signs the waiting room's admissions; each expires when
	// the shopper's window to buy does.
	admissionTok purchaseTokens
}

// New returns the Gin engine with every route.
func New(d Deps) *gin.Engine {
	secret, ttl := string(d.Tokens.secret), cmp.Or(d.PurchaseTokenTTL, 2*time.Minute)
	s := &Server{Deps: d, tokens: d.Tokens, adminDigest: sha256.Sum256([]byte(d.AdminToken)),
		adminSess:    newAdminSessions(secret, d.AdminToken, d.Now),
		purchaseTok:  newPurchaseTokens(secret, purchaseKind, ttl),
		admissionTok: newPurchaseTokens(secret, admissionKind, ttl)}
	r := gin.New()
	r.HandleMethodNotAllowed = true
	// Gin trusts X-Forwarded-For from anyone unless told otherwise; a client
	// could then pick the IP that rate limits and logs see.
	if err := r.SetTrustedProxies(d.TrustedProxies); err != nil {
		panic("httpapi: bad trusted proxies: " + err.Error()) // validated in config
	}
	log := d.Logger
	if log == nil {
		log = slog.Default()
	}
	r.Use(gin.CustomRecovery(func(c *gin.Context, _ any) { writeError(c, apiErr(500, "internal", "internal error")) }))
	r.Use(requestLog(log), securityHeaders, d.Metrics.middleware, limitBody(1<<20))
	r.NoRoute(func(c *gin.Context) { writeError(c, apiErr(http.StatusNotFound, "not_found", "no such route")) })
	r.NoMethod(func(c *gin.Context) {
		writeError(c, apiErr(http.StatusMethodNotAllowed, "method_not_allowed", "method not allowed on this route"))
	})

	r.GET("/healthz", s.healthz)
	r.GET("/readyz", s.readyz)
	r.GET("/metrics", gin.WrapH(d.Metrics.Handler()))
	r.GET("/", s.page("index.html"))
	r.GET("/sale/:id", s.page("sale.html"))
	r.GET("/orders", s.page("orders.html"))
	r.GET("/admin", s.page("admin.html"))
	r.GET("/static/*filepath", s.static)

	v1 := r.Group("/api/v1", sameOrigin)
	v1.POST("/session", s.limit("login"), s.login)
	v1.DELETE("/session", s.logout(SessionCookie))
	v1.GET("/items", s.listItems)
	v1.GET("/items/:id", s.getItem)
	v1.POST("/admin/session", s.limit("admin-login"), s.adminLogin)
	v1.DELETE("/admin/session", s.logout(AdminCookie))

	shop := v1.Group("", s.shopper)
	shop.GET("/session", s.whoami)
	shop.GET("/items/:id/purchase-token", s.limit("token"), s.purchaseToken)
	shop.POST("/items/:id/room", s.limit("room"), s.joinRoom)
	shop.GET("/items/:id/room", s.limit("room"), s.getRoom)
	v1.GET("/items/:id/room/events", s.roomEvents)
	// A sale this server has seen sell out is answered before anything else,
	// sign-in included: stock levels are public, and that storm must cost
	// nothing.
	v1.POST("/items/:id/purchase", s.soldOutMark, s.shopper, s.limit("purchase"), s.requirePurchaseToken, s.purchase)
	shop.GET("/orders", s.listOrders)
	shop.GET("/orders/:id", s.getOrder)
	shop.POST("/orders/:id/pay", s.payOrder)
	shop.POST("/orders/:id/cancel", s.cancelOrder)

	adm := v1.Group("/admin", s.admin)
	adm.GET("/session", s.adminSessionInfo)
	adm.GET("/events", s.events)
	adm.POST("/items", s.createItem)
	adm.PATCH("/items/:id", s.updateItem)
	adm.POST("/items/:id/warm", s.warmItem)
	adm.GET("/items/:id/stats", s.itemStats)
	adm.GET("/reconcile", s.reconcile)
	return r
}

func limitBody(n int64) gin.HandlerFunc {
	return func(c *gin.Context) {
		c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, n)
	}
}
