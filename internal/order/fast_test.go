package order_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/order"
	"github.com/seckill/seckill/internal/testenv"
)

// shop is three sales in a fresh database: a drop of sizes S (2 units) and
// M (3 units), a plain sale of one variant (5 units), and a big one (1,000
// units). Two shops built alike get the same ids.
type shop struct {
	db               *gorm.DB
	orders           *order.Store
	drop, plain, big catalog.Item
}

func newShop(tb testing.TB) shop {
	tb.Helper()
	db := testenv.MySQL(tb)
	items, ctx := catalog.NewStore(db.Gorm), context.Background()
	drop, err := items.Create(ctx, catalog.Item{Name: "drop", PerUserLimit: 2, StartsAt: t0, EndsAt: t0.Add(time.Hour),
		Variants: []catalog.Variant{{Label: "S", StockTotal: 2}, {Label: "M", StockTotal: 3}}})
	if err != nil {
		tb.Fatal(err)
	}
	plain, err := items.Create(ctx, catalog.Item{Name: "plain", StockTotal: 5, PerUserLimit: 1, StartsAt: t0, EndsAt: t0.Add(time.Hour)})
	if err != nil {
		tb.Fatal(err)
	}
	big, err := items.Create(ctx, catalog.Item{Name: "big", StockTotal: 1000, PerUserLimit: 1, StartsAt: t0, EndsAt: t0.Add(time.Hour)})
	if err != nil {
		tb.Fatal(err)
	}
	return shop{db: db.Gorm, orders: order.NewStore(db.Gorm), drop: drop, plain: plain, big: big}
}

// bulk is orders from to to-1 of the big sale, one shopper each.
func (s shop) bulk(from, to int) []keyspace.Entry {
	var out []keyspace.Entry
	for i := from; i < to; i++ {
		n := strconv.Itoa(10000 + i)
		out = append(out, keyspace.Entry{OrderID: "BIG" + n, UserID: "shopper" + n, ItemID: s.big.ID, VariantID: s.big.Variants[0].ID,
			Quantity: 1, CreatedAt: t0, StreamID: "1700000000001-" + n})
	}
	return out
}

// order is an entry of one unit per letter of size: "S", "M", "SS", "P" (the
// plain sale's variant), "P0" (the plain sale, no variant named, as entries
// queued before variants), "D0" (the drop, no variant named), "X" (a variant
// that does not exist), "Z" (a sale that does not exist).
func (s shop) order(id, user, size string) keyspace.Entry {
	e := keyspace.Entry{OrderID: id, UserID: user, ItemID: s.drop.ID, Quantity: len(size), CreatedAt: t0,
		StreamID: "1700000000000-" + strconv.Itoa(int(id[0])), IdempotencyKey: "idem-" + id}
	switch size {
	case "S", "SS":
		e.VariantID = s.drop.Variants[0].ID
	case "M":
		e.VariantID = s.drop.Variants[1].ID
	case "P":
		e.ItemID, e.VariantID = s.plain.ID, s.plain.Variants[0].ID
	case "P0":
		e.ItemID, e.Quantity = s.plain.ID, 1
	case "D0":
		e.Quantity = 1
	case "X":
		e.VariantID = 999_999
	case "Z":
		e.ItemID, e.VariantID = 999_999, s.plain.Variants[0].ID
	}
	return e
}

// state is every row the persister writes or changes, as text.
func (s shop) state(tb testing.TB) string {
	tb.Helper()
	var orders []struct {
		ID, UserID, Status, IdempotencyKey string
		ItemID, VariantID                  int64
		Quantity                           int
		RedisReleased                      bool
		StreamMs, StreamSeq                uint64
		CreatedAt                          time.Time
		ActiveUserID                       *string
	}
	var stock []struct {
		Kind      string
		ID, Stock int64
	}
	err := s.db.Raw("SELECT * FROM orders ORDER BY id").Scan(&orders).Error
	if err == nil {
		err = s.db.Raw("SELECT 'item' AS kind, id, stock FROM items UNION ALL SELECT 'variant', id, stock FROM variants ORDER BY kind, id").
			Scan(&stock).Error
	}
	if err != nil {
		tb.Fatal(err)
	}
	var b strings.Builder
	for _, o := range orders {
		fmt.Fprintf(&b, "order %s item %d variant %d user %s qty %d %s released %v idem %s stream %d-%d at %s active %v\n",
			o.ID, o.ItemID, o.VariantID, o.UserID, o.Quantity, o.Status, o.RedisReleased, o.IdempotencyKey, o.StreamMs,
			o.StreamSeq, o.CreatedAt, o.ActiveUserID != nil)
	}
	for _, r := range stock {
		fmt.Fprintf(&b, "%s %d stock %d\n", r.Kind, r.ID, r.Stock)
	}
	return b.String()
}

func describe(res order.Result) string {
	ids := func(es []keyspace.Entry) string {
		var out []string
		for _, e := range es {
			out = append(out, e.OrderID)
		}
		return strings.Join(out, " ")
	}
	var rejected []string
	for _, r := range res.Rejected {
		rejected = append(rejected, r.Entry.OrderID+" ("+r.Reason+")")
	}
	return fmt.Sprintf("inserted [%s] duplicate [%s] rejected [%s]", ids(res.Inserted), ids(res.Duplicate), strings.Join(rejected, ", "))
}

// TestFastPathKeepsCarefulResults runs each batch twice, in two shops built
// alike: through Persist, which tries the fast path first, and through the
// careful path alone, as every batch ran before the fast path. Both must
// give the Result written here and leave the same rows.
func TestFastPathKeepsCarefulResults(t *testing.T) {
	t.Parallel()
	type step func(s shop) []keyspace.Entry
	tests := []struct {
		name   string
		before step // persisted first, on the careful path
		cancel string
		batch  step
		want   string
	}{
		{name: "new orders", batch: func(s shop) []keyspace.Entry {
			return []keyspace.Entry{s.order("A", "ann", "S"), s.order("B", "bob", "M"), s.order("C", "cy", "P")}
		}, want: "inserted [A B C] duplicate [] rejected []"},
		{name: "redeliveries among new orders", before: func(s shop) []keyspace.Entry {
			return []keyspace.Entry{s.order("A", "ann", "S"), s.order("B", "bob", "M")}
		}, batch: func(s shop) []keyspace.Entry {
			return []keyspace.Entry{s.order("C", "cy", "M"), s.order("A", "ann", "S"), s.order("D", "dee", "P"), s.order("B", "bob", "M")}
		}, want: "inserted [C D] duplicate [A B] rejected []"},
		{name: "whole batch redelivered", before: func(s shop) []keyspace.Entry {
			return []keyspace.Entry{s.order("A", "ann", "S"), s.order("B", "bob", "P")}
		}, batch: func(s shop) []keyspace.Entry {
			return []keyspace.Entry{s.order("A", "ann", "S"), s.order("B", "bob", "P")}
		}, want: "inserted [] duplicate [A B] rejected []"},
		{name: "second active order of a shopper", before: func(s shop) []keyspace.Entry {
			return []keyspace.Entry{s.order("A", "ann", "S")}
		}, batch: func(s shop) []keyspace.Entry {
			return []keyspace.Entry{s.order("C", "cy", "M"), s.order("D", "ann", "M")}
		}, want: "inserted [C] duplicate [] rejected [D (shopper already holds order A)]"},
		{name: "shopper whose order was cancelled buys again", before: func(s shop) []keyspace.Entry {
			return []keyspace.Entry{s.order("A", "ann", "S")}
		}, cancel: "A", batch: func(s shop) []keyspace.Entry {
			return []keyspace.Entry{s.order("D", "ann", "S")}
		}, want: "inserted [D] duplicate [] rejected []"},
		{name: "unknown variant", batch: func(s shop) []keyspace.Entry {
			return []keyspace.Entry{s.order("A", "ann", "S"), s.order("E", "eve", "X")}
		}, want: "inserted [A] duplicate [] rejected [E (item or variant does not exist in MySQL)]"},
		{name: "variant of another sale", batch: func(s shop) []keyspace.Entry {
			e := s.order("E", "eve", "P")
			e.ItemID = s.drop.ID
			return []keyspace.Entry{s.order("A", "ann", "M"), e}
		}, want: "inserted [A] duplicate [] rejected [E (item or variant does not exist in MySQL)]"},
		{name: "sale that does not exist", batch: func(s shop) []keyspace.Entry {
			return []keyspace.Entry{s.order("Z", "zoe", "Z"), s.order("A", "ann", "P")}
		}, want: "inserted [A] duplicate [] rejected [Z (item or variant does not exist in MySQL)]"},
		{name: "stock MySQL lacks", before: func(s shop) []keyspace.Entry {
			return []keyspace.Entry{s.order("A", "ann", "S")}
		}, batch: func(s shop) []keyspace.Entry {
			return []keyspace.Entry{s.order("B", "bob", "SS"), s.order("C", "cy", "S"), s.order("D", "dee", "M")}
		}, want: "inserted [C D] duplicate [] rejected [B (MySQL has not enough stock)]"},
		{name: "one order twice in the batch", batch: func(s shop) []keyspace.Entry {
			return []keyspace.Entry{s.order("A", "ann", "S"), s.order("A", "ann", "S")}
		}, want: "inserted [A] duplicate [A] rejected []"},
		{name: "one shopper twice in the batch", batch: func(s shop) []keyspace.Entry {
			return []keyspace.Entry{s.order("A", "ann", "S"), s.order("B", "ann", "M")}
		}, want: "inserted [A] duplicate [] rejected [B (shopper already holds order A)]"},
		{name: "entries queued before variants", batch: func(s shop) []keyspace.Entry {
			return []keyspace.Entry{s.order("A", "ann", "P0"), s.order("B", "bob", "D0")}
		}, want: "inserted [A] duplicate [] rejected [B (item or variant does not exist in MySQL)]"},
		// Batches of 50 rows and more are inserted through prepared
		// statements, in chunks of a multiple of 50 and a rest.
		{name: "big batch", batch: func(s shop) []keyspace.Entry { return s.bulk(0, 130) },
			want: "inserted [" + bulkIDs(0, 130) + "] duplicate [] rejected []"},
		{name: "big batch with redeliveries", before: func(s shop) []keyspace.Entry { return s.bulk(0, 130) },
			batch: func(s shop) []keyspace.Entry { return append(s.bulk(100, 180), s.bulk(0, 100)...) },
			want:  "inserted [" + bulkIDs(130, 180) + "] duplicate [" + bulkIDs(100, 130) + " " + bulkIDs(0, 100) + "] rejected []"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			var results, states []string
			for _, persist := range []func(*order.Store, context.Context, []keyspace.Entry) (order.Result, error){
				(*order.Store).Persist, (*order.Store).PersistCareful,
			} {
				s := newShop(t)
				if tt.before != nil {
					if _, err := s.orders.PersistCareful(ctx, tt.before(s)); err != nil {
						t.Fatal(err)
					}
				}
				if tt.cancel != "" {
					if _, err := s.orders.CancelInMySQL(ctx, tt.cancel, "ann", order.ReasonShopper); err != nil {
						t.Fatal(err)
					}
				}
				res, err := persist(s.orders, ctx, tt.batch(s))
				if err != nil {
					t.Fatal(err)
				}
				results, states = append(results, describe(res)), append(states, s.state(t))
			}
			if results[0] != tt.want || results[1] != tt.want {
				t.Errorf("Persist: %s\ncareful: %s\nwant:    %s", results[0], results[1], tt.want)
			}
			if states[0] != states[1] {
				t.Errorf("rows after Persist:\n%s\nafter the careful path:\n%s", states[0], states[1])
			}
		})
	}
}

// TestStockGuardRollsBackTheWholeUpdate: one statement takes the stock of
// every variant, so a refused guard on one of them (too little stock, or a
// variant of another sale) must fail the transaction, or the others would
// keep their share taken.
func TestStockGuardRollsBackTheWholeUpdate(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	sv, mv, pv := s.drop.Variants[0].ID, s.drop.Variants[1].ID, s.plain.Variants[0].ID
	tests := []struct {
		name  string
		qty   map[int64]int
		owner map[int64]int64
		err   error
	}{
		{"too little stock", map[int64]int{sv: 1, mv: 4}, nil, order.ErrStockGuard},
		{"another sale's variant", map[int64]int{sv: 1, pv: 1}, map[int64]int64{sv: s.drop.ID, pv: s.drop.ID}, order.ErrStockGuard},
		{"every unit", map[int64]int{sv: 2, mv: 3}, map[int64]int64{sv: s.drop.ID, mv: s.drop.ID}, nil},
	}
	for _, tt := range tests {
		before := s.state(t)
		err := s.db.Transaction(func(tx *gorm.DB) error { return order.TakeFrom(tx, "variants", tt.qty, tt.owner) })
		if !errors.Is(err, tt.err) {
			t.Fatalf("%s: err = %v, want %v", tt.name, err, tt.err)
		}
		if after := s.state(t); tt.err != nil && after != before {
			t.Errorf("%s: stock changed by a refused take:\n%s\nwant:\n%s", tt.name, after, before)
		}
	}
}

func bulkIDs(from, to int) string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, "BIG"+strconv.Itoa(10000+i))
	}
	return strings.Join(out, " ")
}
