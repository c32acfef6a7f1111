package stocksync

import (
	"context"
	"fmt"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/order"
)

// Figures are one sale's or one variant's numbers in both stores and
// whether they agree.
type Figures struct {
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

// VariantStats are the figures of one variant of a sale.
type VariantStats struct {
	VariantID int64  `json:"variant_id"`
	Label     string `json:"label"`
	Figures
}

// Stats are one sale's figures, in all and per variant. The sale is
// consistent when its own figures and every variant's are.
type Stats struct {
	ItemID int64 `json:"item_id"`
	Figures
	Variants []VariantStats `json:"variants"`
	// split: Redis's sale total disagrees with its variants, or lacks one;
	// only a warm rebuilds that.
	split bool
}

// drifted says whether Redis needs a correction: some variant's stock, or
// the sale's total against the sum of its variants'.
func (st Stats) drifted() bool {
	for _, v := range st.Variants {
		if v.RedisDrift != 0 {
			return true
		}
	}
	return st.RedisDrift != 0
}

// Stats checks invariant 4, per variant and for the sale, while the sale
// goes on. Redis is read at one instant t1 (stock and stream together) and
// MySQL at a later instant t2 in one snapshot. Orders persisted between t1
// and t2 are recognised by their stream id (newer than the stream's last id
// at t1), so no purchase or persisted batch in between makes a consistent
// sale look drifted. For a variant, and summed for its sale:
//
//	redis stock = mysql stock + active qty persisted after t1 − qty still unpersisted
//	              − qty of cancellations not yet given back in Redis
//	mysql stock = stock total − active qty in MySQL
//
// and the sale's figures in each store are the sums of its variants'. It
// returns catalog.ErrNotFound for an unknown item.
func (s *Syncer) Stats(ctx context.Context, itemID int64) (Stats, error) {
	snap, err := s.stock.Snapshot(ctx, itemID)
	if err != nil {
		return Stats{}, err
	}
	if s.betweenReads != nil {
		s.betweenReads()
	}
	var in inputs
	err = s.snapshotRead(ctx, func(items *catalog.Store, orders *order.Store) error {
		if in.it, err = items.Get(ctx, itemID); err != nil {
			return err
		}
		if in.counts, in.perVariant, err = orders.Count(ctx, itemID); err != nil {
			return err
		}
		if in.unpersisted, err = notPersisted(ctx, orders, snap.Pending); err != nil {
			return err
		}
		in.after, in.owed, err = aroundLastID(ctx, orders, itemID, snap.LastID)
		return err
	})
	if err != nil {
		return Stats{}, fmt.Errorf("stats of item %d: %w", itemID, err)
	}
	in.warm, in.redisTotal, in.redisVariants = snap.Warm, snap.Stock, snap.Variants
	return in.assemble(), nil
}

// aroundLastID returns, per variant, the two quantities the formula needs
// relative to the stream's last id at the Redis snapshot: active orders
// persisted from later entries, and cancellations of earlier ones still
// owed to Redis. A stream that never had an entry (new, or recreated after
// Redis lost it) has last id 0-0: every persisted order and cancel predates
// it and is already in the warmed count, so both are zero.
func aroundLastID(ctx context.Context, orders *order.Store, itemID int64, lastID string) (after, owed map[int64]int, err error) {
	if lastID == "" || lastID == "0-0" {
		return nil, nil, nil
	}
	ms, seq, err := keyspace.StreamPos(lastID)
	if err != nil {
		return nil, nil, err
	}
	if after, err = orders.ActiveQuantityAfter(ctx, itemID, ms, seq); err != nil {
		return nil, nil, err
	}
	owed, err = orders.OwedQuantityUpTo(ctx, itemID, ms, seq)
	return after, owed, err
}

// inputs are what Stats read from both stores.
type inputs struct {
	it            catalog.Item
	counts        order.Counts
	perVariant    map[int64]order.Counts
	unpersisted   []keyspace.Entry
	after, owed   map[int64]int
	warm          bool
	redisTotal    int64
	redisVariants map[int64]int64
}

func (in inputs) assemble() Stats {
	pending := make(map[int64][2]int) // variant -> orders, quantity
	for _, e := range in.unpersisted {
		v := variantOf(in.it, e)
		p := pending[v]
		pending[v] = [2]int{p[0] + 1, p[1] + e.Quantity}
	}
	st := Stats{ItemID: in.it.ID, Variants: make([]VariantStats, 0, len(in.it.Variants))}
	var sumRedis int64
	sumMySQL, sumTotal := 0, 0
	for _, v := range in.it.Variants {
		inRedis, ok := in.redisVariants[v.ID]
		f := in.figures(v.StockTotal, v.Stock, in.perVariant[v.ID], pending[v.ID], in.after[v.ID], in.owed[v.ID], inRedis)
		if in.warm && !ok {
			f.Problems = append(f.Problems, "the variant is missing in redis")
			st.split = true
		}
		f.Consistent = len(f.Problems) == 0
		st.Variants = append(st.Variants, VariantStats{VariantID: v.ID, Label: v.Label, Figures: f})
		sumRedis, sumMySQL, sumTotal = sumRedis+inRedis, sumMySQL+v.Stock, sumTotal+v.StockTotal
	}
	var all [2]int
	after, owed := 0, 0
	for _, p := range pending {
		all = [2]int{all[0] + p[0], all[1] + p[1]}
	}
	for _, n := range in.after {
		after += n
	}
	for _, n := range in.owed {
		owed += n
	}
	st.Figures = in.figures(in.it.StockTotal, in.it.Stock, in.counts, all, after, owed, in.redisTotal)
	st.sums(in.warm, sumRedis, sumMySQL, sumTotal)
	return st
}

// figures computes one set of figures; pending is (orders, quantity).
func (in inputs) figures(total, mysql int, c order.Counts, pending [2]int, after, owed int, inRedis int64) Figures {
	f := Figures{StockTotal: total, StockMySQL: mysql, OrdersPending: pending[0], OrdersConfirmed: c.Confirmed,
		OrdersPaid: c.Paid, OrdersCancelled: c.Cancelled, Sold: c.ActiveQuantity + pending[1], Problems: []string{},
		active: c.ActiveQuantity}
	if in.warm {
		f.StockRedis = &inRedis
	}
	f.check(in.warm, inRedis, int64(mysql+after-pending[1]-owed), total-c.ActiveQuantity)
	return f
}

func (f *Figures) check(warm bool, redisStock, wantRedis int64, wantMySQL int) {
	if warm {
		f.RedisDrift = redisStock - wantRedis
	}
	// A sale that is not warm is not drifted: it is warmed from MySQL on its
	// first purchase. stock_redis is null then.
	if warm && redisStock != wantRedis {
		f.Problems = append(f.Problems, fmt.Sprintf("redis stock %d, want %d (mysql stock minus orders not yet persisted)", redisStock, wantRedis))
	}
	if redisStock < 0 || f.StockMySQL < 0 {
		f.Problems = append(f.Problems, "negative stock")
	}
	if f.StockMySQL != wantMySQL {
		f.Problems = append(f.Problems, fmt.Sprintf("mysql stock %d, want %d (stock_total minus active orders)", f.StockMySQL, wantMySQL))
	}
}

// sums checks that the sale's figures are its variants' sums in each store,
// and settles whether the sale is consistent.
func (st *Stats) sums(warm bool, inRedis int64, mysql, total int) {
	if warm && st.StockRedis != nil && *st.StockRedis != inRedis {
		st.split = true
		st.Problems = append(st.Problems, fmt.Sprintf("redis stock %d, but its variants' sum to %d", *st.StockRedis, inRedis))
	}
	if st.StockMySQL != mysql || st.StockTotal != total {
		st.Problems = append(st.Problems, fmt.Sprintf("mysql stock %d of %d, but its variants' sum to %d of %d",
			st.StockMySQL, st.StockTotal, mysql, total))
	}
	st.Consistent = len(st.Problems) == 0
	for _, v := range st.Variants {
		st.Consistent = st.Consistent && v.Consistent
	}
}
