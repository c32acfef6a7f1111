package stocksync_test

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/order"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/sale"
	"github.com/seckill/seckill/internal/stock"
	"github.com/seckill/seckill/internal/sync/lock"
	"github.com/seckill/seckill/internal/sync/stocksync"
	"github.com/seckill/seckill/internal/testenv"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// stack is the real system minus HTTP: MySQL, Redis and the domain stores.
type stack struct {
	db     testenv.DB
	rdb    redis.UniversalClient
	keys   keyspace.Space
	items  *catalog.Store
	orders *order.Store
	stock  *stock.Store
	syncer *stocksync.Syncer
	sales  *sale.Service
	log    *slog.Logger
}

func newStack(tb testing.TB) *stack {
	tb.Helper()
	return newStackOn(tb, redisconn.Target{Addr: testenv.RedisAddr(tb)})
}

// onEachRedis runs test on a fresh stack on the shared Redis and on the
// shared Redis Cluster, as subtests named after the target.
func onEachRedis(t *testing.T, test func(t *testing.T, s *stack)) {
	t.Helper()
	for _, tgt := range testenv.RedisTargets(t) {
		t.Run(tgt.Name, func(t *testing.T) { test(t, newStackOn(t, tgt.Redis)) })
	}
}

// newStackOn is newStack on Redis target t (a single Redis or a cluster).
func newStackOn(tb testing.TB, t redisconn.Target) *stack {
	tb.Helper()
	db := testenv.MySQL(tb)
	rdb, prefix := testenv.RedisOn(tb, t)
	s := &stack{db: db, rdb: rdb, keys: keyspace.New(prefix), log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	s.items, s.orders = catalog.NewStore(db.Gorm), order.NewStore(db.Gorm)
	s.stock = stock.NewStore(rdb, s.keys)
	clock := func() time.Time { return t0 }
	s.syncer = stocksync.New(db.Gorm, s.stock, lock.New(rdb, prefix), clock, s.log)
	s.sales = sale.New(db.Gorm, s.stock, s.syncer, clock, s.log)
	return s
}

// editMySQL applies set (an SQL assignment list) to the sale and its
// variants in MySQL only, as an operator editing the database behind
// Redis's back would.
func (s *stack) editMySQL(tb testing.TB, itemID int64, set string) {
	tb.Helper()
	for _, q := range []string{"UPDATE items SET " + set + " WHERE id = ?", "UPDATE variants SET " + set + " WHERE item_id = ?"} {
		if err := s.db.Gorm.Exec(q, itemID).Error; err != nil {
			tb.Fatal(err)
		}
	}
}

// sale creates a sale open from t0 for an hour and warms it.
func (s *stack) sale(tb testing.TB, total, limit int) catalog.Item {
	tb.Helper()
	return s.create(tb, catalog.Item{Name: "sale", PriceCents: 100, StockTotal: total, PerUserLimit: limit})
}

// drop creates a sale of one variant per stock given ("size 1", "size 2",
// ...), open from t0 for an hour, and warms it.
func (s *stack) drop(tb testing.TB, limit int, stocks ...int) catalog.Item {
	tb.Helper()
	it := catalog.Item{Name: "drop", PriceCents: 100, PerUserLimit: limit}
	for i, n := range stocks {
		it.Variants = append(it.Variants, catalog.Variant{Label: "size " + strconv.Itoa(i+1), StockTotal: n})
	}
	return s.create(tb, it)
}

func (s *stack) create(tb testing.TB, it catalog.Item) catalog.Item {
	tb.Helper()
	ctx := context.Background()
	it.StartsAt, it.EndsAt = t0, t0.Add(time.Hour)
	it, err := s.items.Create(ctx, it)
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.syncer.Warm(ctx, it.ID); err != nil {
		tb.Fatal(err)
	}
	return it
}

func (s *stack) buy(itemID int64, user string, qty int) (stock.Reservation, error) {
	return s.stock.Reserve(context.Background(), stock.Request{ItemID: itemID, UserID: user, Quantity: qty,
		OrderID: newID(), Now: t0.Add(time.Second)})
}

var (
	idMu  sync.Mutex
	idSeq int
)

func newID() string {
	idMu.Lock()
	defer idMu.Unlock()
	idSeq++
	return "01TEST" + strconv.Itoa(1_000_000_000 + idSeq)[1:] + "0000000000"
}

// workers runs n persistence workers until the returned stop is called;
// stop waits for them to finish their batches.
func (s *stack) workers(tb testing.TB, n int, claimIdle time.Duration) (stop func()) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range n {
		p := newPersister(s, "w"+strconv.Itoa(i), 100)
		p.cfg.ClaimIdle = claimIdle
		wg.Go(func() { order.NewPersister(s.rdb, s.keys, s.orders, s.syncer, nil, nil, p.cfg, s.log).Run(ctx) })
	}
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); wg.Wait() }) }
	tb.Cleanup(stop)
	return stop
}

// drained waits until the item's stream is empty: every order is in MySQL.
func (s *stack) drained(tb testing.TB, itemID int64) {
	tb.Helper()
	testenv.WaitFor(tb, 20*time.Second, func() bool {
		return s.rdb.XLen(context.Background(), s.keys.Item(itemID).Stream()).Val() == 0
	}, "stream of item %d not drained", itemID)
}

// settle starts a worker, waits until it has persisted all the sale
// queued, and checks the invariants: how a test ends once the fault it
// injected is over.
func (s *stack) settle(tb testing.TB, it catalog.Item) {
	tb.Helper()
	s.workers(tb, 1, time.Second)
	s.drained(tb, it.ID)
	s.invariants(tb, it)
}

// invariants checks invariants 1, 2 and 4 once drained, against the rows.
func (s *stack) invariants(tb testing.TB, it catalog.Item) []order.Order {
	tb.Helper()
	ctx := context.Background()
	active, err := s.orders.Active(ctx, it.ID)
	if err != nil {
		tb.Fatal(err)
	}
	sold, users := 0, map[string]bool{}
	for _, o := range active {
		sold += o.Quantity
		if users[o.UserID] {
			tb.Errorf("shopper %s holds two active orders", o.UserID)
		}
		users[o.UserID] = true
	}
	cur, _ := s.items.Get(ctx, it.ID)
	redisStock, _ := s.rdb.Get(ctx, s.keys.Item(it.ID).Stock()).Int()
	if sold > it.StockTotal || cur.Stock != it.StockTotal-sold || redisStock != cur.Stock {
		tb.Errorf("sold %d of %d; mysql stock %d; redis stock %d: want redis = mysql = total - sold",
			sold, it.StockTotal, cur.Stock, redisStock)
	}
	st, err := s.syncer.Stats(ctx, it.ID)
	if err != nil || !st.Consistent || st.Sold != sold || st.OrdersPending != 0 {
		tb.Errorf("stats = %+v, %v; want consistent, sold %d, none pending", st, err, sold)
	}
	return active
}

type persister struct {
	*order.Persister
	cfg order.PersisterConfig
}

func newPersister(s *stack, consumer string, batch int) persister {
	cfg := order.PersisterConfig{Consumer: consumer, Batch: batch, Block: 50 * time.Millisecond,
		ClaimIdle: time.Second, ClaimEvery: 20 * time.Millisecond}
	return persister{order.NewPersister(s.rdb, s.keys, s.orders, s.syncer, nil, nil, cfg, s.log), cfg}
}
