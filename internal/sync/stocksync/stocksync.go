// Package stocksync keeps Redis in step with MySQL, the authority: it warms
// sales into Redis, checks the invariants between the two stores (Stats),
// repairs drift (Repair, Reconcile and its periodic job), and finishes the
// Redis step of cancellations. Every step that changes the stores runs under
// the sale's sync lock (Exclusive), so no correction is measured while
// another step changes them; Stats itself reads without it.
// The life of a sale (create, update, cancel) is package sale's; it uses
// this package for the Redis side.
//
// It lives under internal/sync (the folder the project layout names) but is
// not called "sync", so it never shadows the standard library's package.
package stocksync

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/audit"
	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/order"
	"github.com/seckill/seckill/internal/stock"
	"github.com/seckill/seckill/internal/sync/lock"
)

// Syncer reads MySQL through consistent read-only transactions and writes
// Redis through the stock store.
type Syncer struct {
	db    *gorm.DB
	stock *stock.Store
	locks *lock.Locker
	now   func() time.Time
	log   *slog.Logger
	// betweenReads, when set by a test, runs after Stats reads Redis and
	// before it reads MySQL: the window its accounting must survive.
	betweenReads func()
	// auditor, if set, records each repair reconciliation makes
	// (SetAuditor).
	auditor audit.Recorder
	// onDrift is told of every sale a repairing reconciliation found
	// inconsistent.
	onDrift func()
}

// New returns a syncer whose sale locks are taken from locks; now is the
// clock that decides which sales are open.
func New(db *gorm.DB, st *stock.Store, locks *lock.Locker, now func() time.Time, log *slog.Logger) *Syncer {
	return &Syncer{db: db, stock: st, locks: locks, now: now, log: log}
}

// OnDrift has f told of every sale that a repairing reconciliation
// (Reconcile: its job or an admin's POST) finds drifted: Redis lost it or
// disagrees with MySQL. Check does not tell f, so looking at drift any
// number of times counts it never, and each repair once. Set it before
// serving.
func (s *Syncer) OnDrift(f func()) { s.onDrift = f }

// How long a holder of a sale's sync lock may keep it before it expires
// (a holder that died or hung frees it then), and how long a caller waits
// for it. A warm reads a whole sale and waits its turn longer.
const (
	lockTTL      = 10 * time.Second
	lockWait     = 5 * time.Second
	warmLockTTL  = 30 * time.Second
	warmLockWait = 10 * time.Second
)

// Exclusive runs fn while it holds the sale's sync lock, waiting up to
// lockWait for it; the lock expires after lockTTL, so a holder that died or
// hung frees it. Warms, repairs, releases and stock changes of one sale never overlap,
// on any server: a correction measured while another of them changed the
// stores would be applied on top of it. The lock is not refreshed and never
// cancels fn: a step that has begun to change the stores is finished. Each
// call is a holder of its own, so fn must not take the same sale's lock
// again (it would wait for itself). It returns lock.ErrNotObtained if the
// lock stayed held, or fn's error; a failed release is logged, since fn's
// work is done and the lock expires anyway.
func (s *Syncer) Exclusive(ctx context.Context, itemID int64, fn func(ctx context.Context) error) error {
	return s.exclusive(ctx, itemID, lockTTL, lockWait, fn)
}

func (s *Syncer) exclusive(ctx context.Context, itemID int64, ttl, wait time.Duration, fn func(ctx context.Context) error) error {
	lk, err := s.locks.ObtainWait(ctx, "sale:"+strconv.FormatInt(itemID, 10), lock.NewOwner(), ttl, wait)
	if err != nil {
		return fmt.Errorf("sale %d: %w", itemID, err)
	}
	defer func() {
		if err := lk.Release(context.WithoutCancel(ctx)); err != nil {
			s.log.Warn("sale sync lock not released; it expires by itself", "item_id", itemID, "err", err)
		}
	}()
	return fn(ctx)
}

// snapshotRead runs fn in one read-only REPEATABLE READ transaction, so every
// MySQL read it makes sees the same instant.
func (s *Syncer) snapshotRead(ctx context.Context, fn func(*catalog.Store, *order.Store) error) error {
	opts := &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		return fn(catalog.NewStore(tx), order.NewStore(tx))
	}, opts)
}

// Warm copies an item's stock, window, limits, prices and buyers from MySQL into Redis.
// Orders still in the stream and not yet in MySQL keep their stock and their
// buyer, so warming mid-sale never hands out stock twice. It returns
// catalog.ErrNotFound for an unknown item, catalog.ErrRetired for a retired
// one, stock.ErrBusy if purchases kept racing it, and lock.ErrNotObtained if
// another sync step held the sale.
func (s *Syncer) Warm(ctx context.Context, itemID int64) error {
	// A correction measured before this warm must not land after it.
	return s.exclusive(ctx, itemID, warmLockTTL, warmLockWait, func(ctx context.Context) error {
		return s.warmLocked(ctx, itemID)
	})
}

// WarmHeld is Warm for a caller that holds the sale's sync lock
// (Exclusive): one that changed the sale's variants and must warm it before
// letting go.
func (s *Syncer) WarmHeld(ctx context.Context, itemID int64) error { return s.warmLocked(ctx, itemID) }

func (s *Syncer) warmLocked(ctx context.Context, itemID int64) error {
	// Before the store registers the sale and creates its stream: a
	// retired sale must gain no key back. Retiring takes the same lock.
	it, err := catalog.NewStore(s.db).Get(ctx, itemID)
	if err != nil {
		return err
	}
	if it.RetiredAt != nil {
		return fmt.Errorf("warm item %d: %w", itemID, catalog.ErrRetired)
	}
	return s.stock.Warm(ctx, itemID, func(ctx context.Context, pending []keyspace.Entry) (stock.State, error) {
		var st stock.State
		// Not read-only: the item row is read with a shared lock, so an
		// admin update in progress commits before we read, and no batch of
		// the item is persisted while we read.
		opts := &sql.TxOptions{Isolation: sql.LevelRepeatableRead}
		err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
			var err error
			st, err = load(ctx, catalog.NewStore(tx), order.NewStore(tx), itemID, pending)
			return err
		}, opts)
		return st, err
	})
}

func load(ctx context.Context, items *catalog.Store, orders *order.Store, itemID int64,
	pending []keyspace.Entry) (stock.State, error) {
	it, err := items.GetShared(ctx, itemID)
	if err != nil {
		return stock.State{}, err
	}
	active, err := orders.Active(ctx, itemID)
	if err != nil {
		return stock.State{}, err
	}
	unpersisted, err := notPersisted(ctx, orders, pending)
	if err != nil {
		return stock.State{}, err
	}
	st := stock.State{Variants: make(map[int64]int64, len(it.Variants)), Meta: MetaOf(it),
		Buyers: map[string]keyspace.Buyer{}, Idempotency: map[string]keyspace.Buyer{}}
	for _, v := range it.Variants {
		st.Variants[v.ID] = int64(v.Stock)
	}
	for _, o := range active {
		// A replay after the warm answers the price the order was taken at.
		hold(&st, o.UserID, o.IdempotencyKey, keyspace.Buyer{OrderID: o.ID, Quantity: o.Quantity,
			CreatedAt: o.CreatedAt, VariantID: o.VariantID, UnitPriceCents: o.UnitPriceCents})
	}
	for _, e := range unpersisted {
		v := variantOf(it, e)
		if _, ok := st.Variants[v]; ok {
			st.Variants[v] -= int64(e.Quantity)
		} // else MySQL will refuse the order, and the repair forgets its buyer
		hold(&st, e.UserID, e.IdempotencyKey, keyspace.Buyer{OrderID: e.OrderID, Quantity: e.Quantity,
			CreatedAt: e.CreatedAt, VariantID: v, UnitPriceCents: e.UnitPriceCents})
	}
	for id, n := range st.Variants {
		// Below zero only if MySQL lost stock that Redis had already
		// reserved: the persister will reject the excess orders; Redis must
		// not go negative.
		st.Variants[id] = max(n, 0)
	}
	return st, nil
}

// variantOf is the variant of a queued order: the one it names, or for an
// order queued before sales had variants, its sale's only one (0 if it has
// several since). The persister applies the same rule (order.Persist).
func variantOf(it catalog.Item, e keyspace.Entry) int64 {
	if e.VariantID == 0 && len(it.Variants) == 1 {
		return it.Variants[0].ID
	}
	return e.VariantID
}

// MetaOf is what Redis enforces of sale it.
func MetaOf(it catalog.Item) stock.Meta {
	m := stock.Meta{StartsAt: it.StartsAt, EndsAt: it.EndsAt, Limit: it.PerUserLimit, RoomRate: it.RoomRate,
		Paused: it.Paused, Draw: it.IsDraw(), VariantLimits: make(map[int64]int, len(it.Variants)),
		VariantPrices: make(map[int64]int64, len(it.Variants))}
	if len(it.Variants) == 1 {
		m.Only = it.Variants[0].ID
	}
	for _, v := range it.Variants {
		m.VariantLimits[v.ID] = v.Limit(it)
		m.VariantPrices[v.ID] = v.Price(it)
	}
	return m
}

func hold(st *stock.State, user, idemKey string, b keyspace.Buyer) {
	st.Buyers[user] = b
	if idemKey != "" {
		st.Idempotency[user+"\n"+idemKey] = b
	}
}

// notPersisted returns the entries that have no row in MySQL yet.
func notPersisted(ctx context.Context, orders *order.Store, entries []keyspace.Entry) ([]keyspace.Entry, error) {
	ids := make([]string, len(entries))
	for i, e := range entries {
		ids[i] = e.OrderID
	}
	found, err := orders.Existing(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]keyspace.Entry, 0, len(entries))
	for _, e := range entries {
		if !found[e.OrderID] {
			out = append(out, e)
		}
	}
	return out, nil
}

// WarmOpen warms every sale that has not ended; the server calls it at
// start-up. It warms what it can and returns the first error.
func (s *Syncer) WarmOpen(ctx context.Context) error {
	var open []catalog.Item
	err := s.snapshotRead(ctx, func(items *catalog.Store, _ *order.Store) error {
		var err error
		open, err = items.ListOpen(ctx, s.now())
		return err
	})
	if err != nil {
		return fmt.Errorf("warm open sales: %w", err)
	}
	var first error
	for _, it := range open {
		if err := s.Warm(ctx, it.ID); err != nil {
			s.log.Error("warm failed", "item_id", it.ID, "err", err)
			first = cmp.Or(first, err)
		}
	}
	s.log.Info("warmed open sales", "n", len(open))
	return first
}
