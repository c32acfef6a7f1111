package stocksync

import (
	"context"
	"fmt"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/order"
)

// Stats are one sale's numbers in both stores and whether they agree.
type Stats struct {
	ItemID          int64    `json:"item_id"`
	StockTotal      int      `json:"stock_total"`
	StockMySQL      int      `json:"stock_mysql"`
	StockRedis      *int64   `json:"stock_redis"` // null when not warm
	OrdersPending   int      `json:"orders_pending"`
	OrdersConfirmed int      `json:"orders_confirmed"`
	OrdersPaid      int      `json:"orders_paid"`
	OrdersCancelled int      `json:"orders_cancelled"`
	Sold            int      `json:"sold"`
	Consistent      bool     `json:"consistent"`
	Problems        []string `json:"problems"`
	// RedisDrift is Redis stock minus what it should be; a repair subtracts
	// it. It stays the same while purchases go on.
	RedisDrift int64 `json:"-"`
	active     int   // units held by active orders in MySQL
}

func (st Stats) activeQuantity() int { return st.active }

// Stats checks invariant 4 while the sale goes on. Redis is read at one
// instant t1 (stock and stream together) and MySQL at a later instant t2 in
// one snapshot. Orders persisted between t1 and t2 are recognised by their
// stream id (newer than the stream's last id at t1), so no purchase or
// persisted batch in between makes a consistent sale look drifted:
//
//	redis stock = mysql stock + active qty persisted after t1 − qty still unpersisted
//	              − qty of cancellations not yet given back in Redis
//	mysql stock = stock total − active qty in MySQL
//
// It returns catalog.ErrNotFound for an unknown item.
func (s *Syncer) Stats(ctx context.Context, itemID int64) (Stats, error) {
	snap, err := s.stock.Snapshot(ctx, itemID)
	if err != nil {
		return Stats{}, err
	}
	if s.betweenReads != nil {
		s.betweenReads()
	}
	var (
		it          catalog.Item
		counts      order.Counts
		unpersisted []keyspace.Entry
		after, owed int
	)
	err = s.snapshotRead(ctx, func(items *catalog.Store, orders *order.Store) error {
		if it, err = items.Get(ctx, itemID); err != nil {
			return err
		}
		if counts, err = orders.Count(ctx, itemID); err != nil {
			return err
		}
		if unpersisted, err = notPersisted(ctx, orders, snap.Pending); err != nil {
			return err
		}
		after, owed, err = aroundLastID(ctx, orders, itemID, snap.LastID)
		return err
	})
	if err != nil {
		return Stats{}, fmt.Errorf("stats of item %d: %w", itemID, err)
	}
	return assemble(it, counts, snap.Warm, snap.Stock, unpersisted, after, owed), nil
}

// aroundLastID returns the two quantities the formula needs relative to the
// stream's last id at the Redis snapshot: active orders persisted from later
// entries, and cancellations of earlier ones still owed to Redis. A stream
// that never had an entry (new, or recreated after Redis lost it) has last
// id 0-0: every persisted order and cancel predates it and is already in the
// warmed count, so both are zero.
func aroundLastID(ctx context.Context, orders *order.Store, itemID int64, lastID string) (after, owed int, err error) {
	if lastID == "" || lastID == "0-0" {
		return 0, 0, nil
	}
	ms, seq, err := keyspace.StreamPos(lastID)
	if err != nil {
		return 0, 0, err
	}
	if after, err = orders.ActiveQuantityAfter(ctx, itemID, ms, seq); err != nil {
		return 0, 0, err
	}
	owed, err = orders.OwedQuantityUpTo(ctx, itemID, ms, seq)
	return after, owed, err
}

func assemble(it catalog.Item, c order.Counts, warm bool, redisStock int64, unpersisted []keyspace.Entry, after, owed int) Stats {
	pendingQty := 0
	for _, e := range unpersisted {
		pendingQty += e.Quantity
	}
	st := Stats{
		ItemID: it.ID, StockTotal: it.StockTotal, StockMySQL: it.Stock,
		OrdersPending: len(unpersisted), OrdersConfirmed: c.Confirmed, OrdersPaid: c.Paid, OrdersCancelled: c.Cancelled,
		Sold: c.ActiveQuantity + pendingQty, Problems: []string{}, active: c.ActiveQuantity,
	}
	if warm {
		st.StockRedis = &redisStock
	}
	st.check(warm, redisStock, int64(it.Stock+after-pendingQty-owed), it.StockTotal-c.ActiveQuantity)
	return st
}

func (st *Stats) check(warm bool, redisStock, wantRedis int64, wantMySQL int) {
	if warm {
		st.RedisDrift = redisStock - wantRedis
	}
	// A sale that is not warm is not drifted: it is warmed from MySQL on its
	// first purchase. stock_redis is null then.
	if warm && redisStock != wantRedis {
		st.Problems = append(st.Problems, fmt.Sprintf("redis stock %d, want %d (mysql stock minus orders not yet persisted)", redisStock, wantRedis))
	}
	if redisStock < 0 || st.StockMySQL < 0 {
		st.Problems = append(st.Problems, "negative stock")
	}
	if st.StockMySQL != wantMySQL {
		st.Problems = append(st.Problems, fmt.Sprintf("mysql stock %d, want %d (stock_total minus active orders)", st.StockMySQL, wantMySQL))
	}
	st.Consistent = len(st.Problems) == 0
}
