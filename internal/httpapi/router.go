package httpapi

import (
	"cmp"
	"log/slog"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/order"
	"github.com/seckill/seckill/internal/token"
)

// New returns the Gin engine with every route. Each line below names a
// route, the guards it passes and its handler.
func New(d Deps) *gin.Engine {
	a := newAreas(d)
	g, r := a.guards, gin.New()
	r.HandleMethodNotAllowed = true
	// Gin trusts X-Forwarded-For from anyone unless told otherwise; a client
	// could then pick the IP that rate limits, the proof of work's network
	// and logs see. It also reads X-Real-IP, which a proxy that sets
	// X-Forwarded-For may pass on from the client as sent: only the one
	// header a trusted proxy appends to counts.
	if err := r.SetTrustedProxies(d.TrustedProxies); err != nil {
		panic("httpapi: bad trusted proxies: " + err.Error()) // validated in config
	}
	r.RemoteIPHeaders = []string{"X-Forwarded-For"}
	r.Use(g.recovery)
	r.Use(requestLog(a.log), securityHeaders, d.Metrics.middleware, bodyDeadline(d.BodyTimeout), limitBody(1<<20))
	r.NoRoute(func(c *gin.Context) { g.fail(c, errNoRoute) })
	r.NoMethod(func(c *gin.Context) { g.fail(c, errMethod) })

	ops := a.ops
	r.GET("/healthz", ops.healthz)
	r.GET("/readyz", ops.readyz)
	r.GET("/metrics", d.Metrics.page)
	r.GET("/", ops.page("index.html"))
	r.GET("/sale/:id", ops.page("sale.html"))
	r.GET("/orders", ops.page("orders.html"))
	r.GET("/admin", ops.page("admin.html"))
	r.GET("/admin/sales/:id/report", ops.page("report.html"))
	r.GET("/static/*filepath", ops.static)

	v1, sess, shop, orders, room, admin := r.Group("/api/v1", g.sameOrigin), a.sessions, a.shop, a.orders, a.room, a.admin
	streams := newStreamCap(d.StreamsPerIP).hold(g.fail) // every event stream holds one of its client's slots
	// noStore: the answer carries a token or a shopper's data.
	v1.POST("/session", noStore, g.limit("login"), sess.login)
	v1.DELETE("/session", noStore, sess.logout(SessionCookie))
	v1.GET("/session", noStore, g.shopper, sess.whoami)
	v1.POST("/admin/session", noStore, g.limit("admin-login"), sess.adminLogin)
	v1.DELETE("/admin/session", noStore, sess.adminLogout)
	v1.GET("/admin/session", noStore, g.admin, sess.adminSessionInfo)

	v1.GET("/time", shop.serverTime)
	v1.GET("/items", shop.listItems)
	v1.GET("/items/:id", shop.getItem)
	v1.GET("/items/:id/purchase-token", noStore, g.shopper, g.limit("token"), shop.purchaseToken)
	// A sale this server has seen sell out is answered before anything else,
	// sign-in included: stock levels are public, and that storm must cost
	// nothing.
	v1.POST("/items/:id/purchase", d.Metrics.purchaseOutcome, countPurchase(d.Counters), g.soldOutMark, noStore, g.shopper, g.purchaseLimit(),
		g.requirePurchaseToken, shop.purchase)

	v1.POST("/items/:id/challenge", noStore, g.shopper, g.limit("challenge"), a.challenges.challenge)
	v1.POST("/items/:id/room", noStore, g.shopper, g.limit("room"), g.proofOfWork, room.join)
	v1.GET("/items/:id/room", noStore, g.shopper, g.limit("room"), room.look)
	v1.GET("/items/:id/room/events", streams, room.events)

	v1.POST("/items/:id/entry", noStore, g.shopper, g.limit("entry"), g.proofOfWork, a.draws.enter)
	v1.GET("/items/:id/entry", noStore, g.shopper, a.draws.look)
	v1.GET("/items/:id/draw", a.draws.proof)

	v1.GET("/orders", noStore, g.shopper, orders.list)
	v1.GET("/orders/:id", noStore, g.shopper, orders.get)
	v1.GET("/orders/:id/events", noStore, g.shopper, streams, orders.events)
	v1.POST("/orders/:id/pay", noStore, g.shopper, orders.pay)
	v1.POST("/orders/:id/cancel", noStore, g.shopper, orders.cancel)

	// The payment provider's callbacks: signed, with no session and no
	// Origin, so outside v1's same-origin guard.
	r.POST("/api/v1/payments/callback", noStore, limitBody(maxCallbackBody), a.payments.callback)

	adm := v1.Group("/admin", noStore, g.admin, a.forgetSnapshotsOnChange)
	adm.GET("/events", streams, admin.events)
	adm.POST("/items", admin.createItem)
	adm.PATCH("/items/:id", admin.updateItem)
	adm.POST("/items/:id/variants", admin.addVariant)
	adm.PATCH("/items/:id/variants/:vid", admin.updateVariant)
	adm.DELETE("/items/:id/variants/:vid", admin.deleteVariant)
	adm.POST("/items/:id/warm", admin.warmItem)
	adm.POST("/items/:id/pause", admin.pauseItem)
	adm.POST("/items/:id/resume", admin.resumeItem)
	adm.POST("/items/:id/end", admin.endItem)
	adm.POST("/items/:id/retire", admin.retireItem)
	adm.POST("/orders/:id/cancel", admin.cancelOrder)
	adm.GET("/items/:id/stats", admin.itemStats)
	adm.GET("/reconcile", admin.checkStores)
	adm.POST("/reconcile", admin.reconcile)
	adm.GET("/audit", admin.auditLog)
	adm.GET("/webhooks", a.webhooks.list)
	adm.GET("/webhooks/:seq", a.webhooks.get)
	adm.POST("/webhooks/:seq/resend", a.webhooks.resend)
	adm.GET("/items/:id/report", a.report.report)
	adm.GET("/items/:id/orders.csv", a.report.ordersCSV)
	return r
}

// areas are the handler groups of one server.
type areas struct {
	log        *slog.Logger
	guards     *guards
	ops        opsAPI
	sessions   sessionAPI
	shop       shopAPI
	orders     orderAPI
	room       roomAPI
	draws      drawAPI
	challenges challengeAPI
	admin      adminAPI
	report     reportAPI
	webhooks   webhookAPI
	payments   paymentAPI
	snaps      *snapshots
}

// newAreas hands each group of handlers the parts it uses, and no others.
func newAreas(d Deps) areas {
	log := cmp.Or(d.Logger, slog.Default())
	rep := replier{log: log}
	ttl := cmp.Or(d.PurchaseTokenTTL, 2*time.Minute)
	purchaseTok, admissionTok := token.NewPurchase(d.JWTSecret, ttl), token.NewAdmission(d.JWTSecret, ttl)
	sales := newSaleView(rep, d.Catalog, d.Stock, d.Now)
	snaps := newSnapshots(sales)
	sse := sseStreams{stopping: d.Stopping}
	cookies := cookieRules{secure: d.SecureCookies}
	proofs := newProofs(d, log)
	g := newGuards(rep, d, purchaseTok, admissionTok, proofs)
	return areas{
		log: log, guards: g, snaps: snaps,
		ops:      opsAPI{replier: rep, ready: cachedReady(d.Ready, d.OpsCache), web: d.Web},
		sessions: sessionAPI{replier: rep, guards: g, tokens: g.tokens, demoLogin: d.DemoLogin, cookies: cookies},
		shop: shopAPI{saleView: sales, snaps: snaps, front: d.Front, orders: d.Orders, tokens: purchaseTok,
			newOrderID: d.NewOrderID},
		orders: orderAPI{replier: rep, lookup: order.NewLookup(d.Orders, d.Stock, d.Catalog), life: d.Sales,
			feed: d.OrderFeed, sse: sse, demoPay: d.DemoPayments},
		payments: paymentAPI{replier: rep, payments: d.Sales, secret: []byte(d.PaymentSecret), wall: orNow(d.Wall)},
		room: roomAPI{saleView: sales, room: d.Room, live: d.RoomEvents, warmer: d.Sales, sse: sse,
			window: purchaseTok.TTL(), admissions: admissionTok, counters: d.Counters, unpaid: d.Unpaid},
		draws:      drawAPI{replier: rep, draws: d.Draws, tokens: purchaseTok},
		challenges: challengeAPI{saleView: sales, proofs: proofs},
		report:     reportAPI{saleView: sales, reports: d.Reports, orders: d.Orders},
		webhooks:   webhookAPI{replier: rep, admin: d.Webhooks},
		admin: adminAPI{saleView: sales, sales: d.Sales, retirer: d.Sales, orders: d.Sales, sync: d.Syncer, dashboard: d.Events,
			audit: d.Audit, sessions: g.adminSess, sse: sse},
	}
}

// orNow is clock, or time.Now when nil.
func orNow(clock func() time.Time) func() time.Time {
	if clock == nil {
		return time.Now
	}
	return clock
}

func limitBody(n int64) gin.HandlerFunc {
	return func(c *gin.Context) {
		c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, n)
	}
}

// forgetSnapshotsOnChange drops the shared sale snapshots after an admin
// request that may have changed a sale, so this server shows it at once.
func (a areas) forgetSnapshotsOnChange(c *gin.Context) {
	c.Next()
	if c.Request.Method != http.MethodGet && c.Writer.Status() < http.StatusBadRequest {
		a.snaps.Forget()
	}
}
