package order_test

import (
	"context"
	"testing"

	"github.com/seckill/seckill/internal/keyspace"
)

// TestPersistKeepsTheReservedPrice: a row is stored at the unit price its
// stream entry carries, on the fast path and on the careful one, whatever
// MySQL's price is by then; an entry queued without one (by a server from
// before prices travelled with the reservation) is priced as MySQL has it.
func TestPersistKeepsTheReservedPrice(t *testing.T) {
	t.Parallel()
	s, ctx := newShop(t), context.Background()
	if err := s.db.Exec("UPDATE items SET price_cents = 4999").Error; err != nil {
		t.Fatal(err)
	}
	at := func(e keyspace.Entry, stream string, unit int64) keyspace.Entry {
		e.StreamID = "1700000000000-" + stream
		if unit >= 0 {
			e.UnitPriceCents = &unit
		}
		return e
	}
	fast := []keyspace.Entry{at(s.order("A1", "ann", "P"), "1", 1999), at(s.order("B1", "bob", "P"), "2", -1)}
	// A redelivery of A1 sends the batch down the careful path.
	careful := []keyspace.Entry{fast[0], at(s.order("C1", "cy", "S"), "3", 2999), at(s.order("D1", "dee", "M"), "4", -1)}
	for _, batch := range [][]keyspace.Entry{fast, careful} {
		if _, err := s.orders.Persist(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}
	for id, want := range map[string]int64{"A1": 1999, "B1": 4999, "C1": 2999, "D1": 4999} {
		o, err := s.orders.Get(ctx, id)
		if err != nil || o.UnitPriceCents == nil || *o.UnitPriceCents != want {
			t.Errorf("order %s: %v; want %d a unit, got %v", id, err, want, o.View().UnitPrice)
		}
	}
}
