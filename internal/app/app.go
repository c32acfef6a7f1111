// Package app wires the server together: stores, workers and the HTTP layer.
// main and the end-to-end tests (test/e2e, one package per area, started
// through test/e2e/e2etest) both start the whole system through it.
package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/oklog/ulid/v2"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"
	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/audit"
	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/dashboard"
	"github.com/seckill/seckill/internal/database"
	"github.com/seckill/seckill/internal/draw"
	"github.com/seckill/seckill/internal/front"
	"github.com/seckill/seckill/internal/httpapi"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/metrics"
	"github.com/seckill/seckill/internal/order"
	"github.com/seckill/seckill/internal/orderfeed"
	"github.com/seckill/seckill/internal/pow"
	"github.com/seckill/seckill/internal/ratelimit"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/report"
	"github.com/seckill/seckill/internal/revoke"
	"github.com/seckill/seckill/internal/room"
	"github.com/seckill/seckill/internal/sale"
	"github.com/seckill/seckill/internal/stock"
	"github.com/seckill/seckill/internal/sync/lock"
	"github.com/seckill/seckill/internal/sync/stocksync"
	"github.com/seckill/seckill/internal/tally"
	"github.com/seckill/seckill/internal/webhook"
	"github.com/seckill/seckill/web"
)

// Options are the parts tests replace.
type Options struct {
	Now func() time.Time // the clock that decides sale windows; time.Now if nil
	// Wall is real time where it is not the sale clock: order ids' time
	// and payment callbacks' signatures; time.Now if nil. Tests move it to
	// see what minutes later brings without waiting.
	Wall   func() time.Time
	Logger *slog.Logger // slog.Default() if nil
}

// App is a running server's parts.
type App struct {
	cfg       config.Config
	log       *slog.Logger
	db        *gorm.DB
	rdb       redis.UniversalClient
	keys      keyspace.Space
	stock     *stock.Store
	orders    *order.Store
	hints     *order.Hints
	locks     *lock.Locker
	syncer    *stocksync.Syncer
	sales     *sale.Service
	draws     *draw.Service
	audit     *audit.Store
	metrics   *metrics.Set
	hub       *dashboard.Hub
	front     *front.Front
	limiter   *ratelimit.Limiter
	rooms     *room.Store
	roomWatch *room.Watcher
	unpaid    *room.UnpaidUnits // what can still come back to a sold-out room, shared by the watcher and the handlers
	feed      *orderfeed.Feed
	counters  *tally.Set
	outbox    *webhook.Writer
	webhooks  *webhook.Store
	server    *http.Server
	listener  net.Listener
	wall      func() time.Time // Options.Wall
}

// New connects to MySQL and Redis, migrates, loads the scripts, warms open
// sales and listens on cfg.HTTPAddr (":0" picks a free port). Serving starts
// with Run.
func New(ctx context.Context, cfg config.Config, opts Options) (*App, error) {
	a := &App{cfg: cfg, log: cmpLogger(opts.Logger), keys: keyspace.New(cfg.RedisPrefix)}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	a.wall = opts.Wall
	if a.wall == nil {
		a.wall = time.Now
	}
	if err := a.connect(ctx); err != nil {
		a.Close()
		return nil, err
	}
	a.stock = stock.NewStore(a.rdb, a.keys)
	a.applyDurability(ctx)
	a.orders = order.NewStore(a.db)
	a.orders.UseClock(now)
	a.locks = lock.New(a.rdb, a.cfg.RedisPrefix)
	a.syncer = stocksync.New(a.db, a.stock, a.locks, now, a.log)
	a.sales = sale.New(a.db, a.stock, a.syncer, now, a.log)
	a.draws = draw.New(a.db, draw.Stores{Catalog: catalog.NewStore(a.db), Stock: a.stock, Orders: a.orders}, now, a.log)
	a.draws.WaitReplicated(a.stock.Replicated)
	a.outbox = webhook.NewWriter(cfg.WebhookURLs, now, cfg.WebhookGiveUp)
	a.webhooks = webhook.NewStore(a.db)
	a.orders.UseOutbox(a.outbox)
	a.sales.UseOutbox(a.outbox)
	a.draws.UseOutbox(a.outbox)
	a.sales.UseDrawKeys(cfg.DrawKeys)
	a.draws.UseKeys(cfg.DrawKeys)
	a.draws.UseLegacySales(cfg.DrawLegacy)
	if len(cfg.DrawLegacy) > 0 {
		a.log.Info("draws made before draw keys, drawn from their stored seed", "item_ids", cfg.DrawLegacy)
	}
	if len(cfg.DrawKeys) == 0 {
		a.log.Warn("SECKILL_DRAW_KEY is not set: draw sales cannot be created, and draws made under a key are not drawn here")
	} else {
		a.log.Info("draw keys", "ids", cfg.DrawKeys.IDs()) // ids only: which keys a rotation has reached
	}
	a.audit = audit.NewStore(a.db, now)
	a.sales.SetAuditor(a.audit)
	a.syncer.SetAuditor(a.audit)
	if err := a.stock.LoadScripts(ctx); err != nil {
		a.Close()
		return nil, err
	}
	if err := a.syncer.WarmOpen(ctx); err != nil {
		a.log.Warn("some sales could not be warmed; they warm on first purchase", "err", err)
	}
	a.metrics = metrics.New(a.streamLag)
	a.metrics.FollowOutbox(a.webhooks.Stats)
	a.rdb.AddHook(a.metrics.RedisHook(a.log))
	a.syncer.OnDrift(a.metrics.DriftFound)
	// Both answered just now; the background check keeps them current.
	a.metrics.DependencyUp("mysql", true)
	a.metrics.DependencyUp("redis", true)
	a.stock.OnBatch(a.metrics.Batch("reserve"))
	a.limiter = ratelimit.New(a.rdb, a.cfg.RedisPrefix, now)
	a.stock.SetLimits(stock.Limits{ShopperEvery: cfg.RateShopper.Every(), ShopperBurst: cfg.RateShopper.Burst,
		ClientEvery: cfg.RateIP.Every(), ClientBurst: cfg.RateIP.Burst})
	a.limiter.OnBatch(a.metrics.Batch("ratelimit"))
	a.front = front.New(a.sales, a.stock, front.NewGate(cfg.AdmitMultiple, cfg.AdmitFloor, time.Second, now),
		front.NewMarks(cfg.SoldOutTTL, now))
	// Stock that comes back, here or (announced over pub/sub) on another
	// server, lifts what holds shoppers back from the sale.
	a.stock.OnReturn(a.front.Returned)
	a.hints = order.NewHints()
	a.stock.OnQueued(a.hints.Queued)
	a.feed = orderfeed.New(a.rdb, a.keys.OrdersChannel(), a.log)
	a.sales.OnOrderChanged(a.feed.Announce)
	a.hub = dashboard.New(dashboardSource{catalog.NewStore(a.db), a.syncer}, now, time.Second, a.log)
	a.hub.FollowAudit(a.audit.Head)
	a.rooms = room.New(a.rdb, a.keys)
	// Ticks five times a second: admission is smooth at any rate, and a
	// sell-out reaches waiting pages within a fifth of a second.
	a.roomWatch = room.NewWatcher(a.rooms, a.roomSales(now), now, 200*time.Millisecond, 2*time.Second, a.log)
	a.counters = tally.New(a.db, a.log)
	a.unpaid = room.NewUnpaidUnits(a.orders, a.log)
	a.roomWatch.UseUnpaid(a.unpaid)
	a.roomWatch.OnTick(func(id int64, st room.Standing) {
		a.counters.Level(id, tally.RoomJoins, st.Queued())
		a.counters.Level(id, tally.RoomAdmits, st.Admitted)
	})
	if err := a.listen(now); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

func cmpLogger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.Default()
	}
	return l
}

func (a *App) connect(ctx context.Context) error {
	if err := database.Migrate(ctx, a.cfg.MySQLDSN); err != nil { // creates the database if missing
		return err
	}
	db, err := database.Open(ctx, a.cfg.MySQLDSN)
	if err != nil {
		return err
	}
	a.db = db
	a.rdb, err = redisconn.Open(ctx, a.cfg.Redis, 64)
	return err
}

func (a *App) listen(now func() time.Time) error {
	gin.SetMode(gin.ReleaseMode)
	stopping := make(chan struct{})
	engine := httpapi.New(httpapi.Deps{
		Stores:   httpapi.Stores{Catalog: catalog.NewStore(a.db), Stock: a.stock, Orders: a.orders},
		Services: httpapi.Services{Sales: a.sales, Syncer: a.syncer, Draws: a.draws, Reports: report.New(a.db, now)},
		Rooms:    httpapi.Rooms{Room: a.rooms, RoomEvents: a.roomWatch, Unpaid: a.unpaid},
		Admin: httpapi.Admin{Events: a.hub, Audit: a.audit, Revocations: revoke.New(a.rdb, a.keys),
			Webhooks: webhook.NewAdmin(a.webhooks, a.audit, a.log, a.cfg.WebhookURLs, a.cfg.WebhookGiveUp, time.Now)},
		Shop: httpapi.Shop{Front: a.front, Limiter: a.limiter, Counters: a.counters, OrderFeed: a.feed,
			NewOrderID: func() string { return ulid.MustNew(ulid.Timestamp(a.wall()), ulid.DefaultEntropy()).String() }},
		// A proof's age and a network's rate are real time, whatever clock
		// decides the sales.
		Proofs: httpapi.Proofs{PowPricer: pow.NewPricer(a.rdb, a.keys, pow.DefaultPolicy(a.cfg.PoWDifficulty), now),
			PowLedger: pow.NewLedger(a.rdb, a.keys, time.Now)},
		Ops: httpapi.Ops{Metrics: httpapi.Metrics{Requests: a.metrics, Pow: a.metrics, Page: a.metrics.Handler(a.cfg.OpsCache)},
			Ready: a.ready, Stopping: stopping},
		Clock: httpapi.Clock{Now: now, Wall: a.wall},
		Web:   web.FS, Logger: a.log,
		Settings: httpapi.Settings{
			AdminToken: a.cfg.AdminToken, DemoLogin: a.cfg.DemoLogin, TrustedProxies: a.cfg.TrustedProxies,
			JWTSecret: a.cfg.JWTSecret, SessionTTL: a.cfg.SessionTTL,
			Rates:                httpapi.Rates{Shopper: a.cfg.RateShopper, IP: a.cfg.RateIP, Login: a.cfg.RateLogin},
			RequirePurchaseToken: a.cfg.PurchaseTokens, PurchaseTokenTTL: a.cfg.PurchaseTTL,
			SecureCookies: a.cfg.SecureCookies, StreamsPerIP: a.cfg.StreamsPerIP,
			BodyTimeout: cmp.Or(a.cfg.BodyTimeout, 10*time.Second), OpsCache: a.cfg.OpsCache,
			DemoPayments: a.cfg.DemoPayments, PaymentSecret: a.cfg.PaymentSecret,
			RequireProofOfWork: a.cfg.PoW, PowDifficulty: a.cfg.PoWDifficulty,
		},
	})
	ln, err := net.Listen("tcp", a.cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", a.cfg.HTTPAddr, err)
	}
	a.listener = ln
	a.server = &http.Server{Handler: engine, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: 2 * time.Minute}
	// Shutdown waits for open requests; event streams never end by
	// themselves, so they are told to.
	a.server.RegisterOnShutdown(func() { close(stopping) })
	return nil
}

// Addr is the address the server listens on.
func (a *App) Addr() string { return a.listener.Addr().String() }

// Run serves HTTP and runs the persistence workers until ctx ends, then shuts
// down gracefully: stop accepting, finish in-flight requests, let each worker
// finish its batch. It closes the connections before returning.
func (a *App) Run(ctx context.Context) error {
	defer a.Close()
	g, gctx := errgroup.WithContext(ctx)
	workers, stopWorkers := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWorkers()
	g.Go(func() error {
		if err := a.server.Serve(a.listener); !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("serve http: %w", err)
		}
		return nil
	})
	g.Go(func() error {
		<-gctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), a.cfg.ShutdownTimout)
		defer cancel()
		err := a.server.Shutdown(sctx)
		stopWorkers() // after HTTP: requests in flight may still enqueue orders
		return err
	})
	g.Go(func() error { return a.hub.Run(workers) })
	g.Go(func() error { return a.watchDependencies(workers) })
	g.Go(func() error { return a.roomWatch.Run(workers) })
	g.Go(func() error { return a.stock.Run(workers) })
	g.Go(func() error { return a.watchReplicas(workers) })
	g.Go(func() error { return a.limiter.Run(workers) })
	g.Go(func() error { return a.feed.Run(workers) })
	// Stops after HTTP, so its last flush has every purchase counted.
	g.Go(func() error { return a.counters.Run(workers, countersFlushEvery) })
	g.Go(func() error { return a.front.Listen(workers, a.rdb, a.keys.ReturnsChannel(), a.log) })
	jobs := a.locks.NewJobs(a.log)
	jobs.OnRun = a.metrics.JobRan
	g.Go(func() error { return jobs.Run(workers, a.jobs()...) })
	if a.cfg.WebhookSecret != "" {
		// Also with no endpoint left configured: events written for one
		// removed since are still owed to it.
		d := webhook.NewDispatcher(a.webhooks, a.locks, webhook.DispatcherConfig{
			Secret: []byte(a.cfg.WebhookSecret), Timeout: a.cfg.WebhookTimeout}, a.metrics, a.log)
		g.Go(func() error { return d.Run(workers) })
	}
	for i := range a.cfg.Workers {
		p := order.NewPersister(a.rdb, a.keys, a.orders, a.syncer, a.metrics, a.hints, a.persisterConfig(i), a.log)
		p.OnStored(a.feed.Announce)
		p.WaitReplicated(a.stock.ReplicatedEntries)
		g.Go(func() error { return p.Run(workers) })
	}
	a.log.Info("serving", "addr", a.Addr(), "workers", a.cfg.Workers)
	return g.Wait()
}

// jobs are the fleet's periodic jobs this server takes its share of.
func (a *App) jobs() []lock.Job {
	jobs := []lock.Job{a.sales.SweepJob(a.cfg.SweepEvery, a.cfg.PaymentTimeout), a.syncer.ReconcileJob(a.cfg.ReconcileEvery)}
	jobs = append(jobs, a.sales.EndsJob(a.cfg.SweepEvery), a.webhooks.PruneJob(webhookHistory), a.draws.Job(min(a.cfg.SweepEvery, time.Second)))
	if a.cfg.RetireEvery > 0 {
		jobs = append(jobs, a.sales.RetireJob(a.cfg.RetireEvery))
	}
	return jobs
}

func (a *App) persisterConfig(i int) order.PersisterConfig {
	instance := a.instance()
	return order.PersisterConfig{
		Consumer: order.ConsumerName(instance, i),
		Adopt:    order.Orphans(instance, i, a.cfg.Workers),
		Batch:    a.cfg.BatchSize, Block: time.Second,
		ClaimIdle: a.cfg.ClaimIdle, ClaimEvery: max(a.cfg.ClaimIdle/2, 100*time.Millisecond),
		Linger: a.cfg.PersistLinger,
	}
}

// webhookHistory is how long delivered events stay in the outbox, for an
// admin looking into what a receiver says it never got.
const webhookHistory = 7 * 24 * time.Hour

// countersFlushEvery is how often a server adds its per-sale counts to
// MySQL: what a crash can lose of them.
const countersFlushEvery = 2 * time.Second

// roomSales lists the open sales that have a waiting room, for the watcher.
func (a *App) roomSales(now func() time.Time) func(ctx context.Context) ([]room.Sale, error) {
	items := catalog.NewStore(a.db)
	return func(ctx context.Context) ([]room.Sale, error) {
		open, err := items.ListOpen(ctx, now())
		if err != nil {
			return nil, err
		}
		var out []room.Sale
		for _, it := range open {
			if it.RoomRate > 0 {
				out = append(out, room.Sale{ID: it.ID, StartsAt: it.StartsAt, EndsAt: it.EndsAt,
					Rules: room.Rules{Rate: float64(it.RoomRate), Window: cmp.Or(a.cfg.PurchaseTTL, 2*time.Minute)}})
			}
		}
		return out, nil
	}
}

// Close releases the connections; Run calls it.
func (a *App) Close() {
	if a.rdb != nil {
		a.rdb.Close()
	}
	if a.db != nil {
		if sqlDB, err := a.db.DB(); err == nil {
			sqlDB.Close()
		}
	}
}

// dashboardSource joins the catalog and the syncer for the dashboard hub.
type dashboardSource struct {
	*catalog.Store
	*stocksync.Syncer
}
