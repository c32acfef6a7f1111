package keyspace_test

import (
	"errors"
	"testing"

	"github.com/seckill/seckill/internal/keyspace"
)

// TestBuyerPrice: a buyer value reads back with its price, and values from
// before prices (or variants) were kept still read, without one.
func TestBuyerPrice(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value string
		price int64 // -1: none
		bad   bool
	}{
		{"01ORDER:2:1700000000000:7:1999", 1999, false},
		{"01ORDER:2:1700000000000:7:0", 0, false},
		{"01ORDER:2:1700000000000:7", -1, false},
		{"01ORDER:2:1700000000000", -1, false},
		{"01ORDER:2:1700000000000:7:-5", 0, true},
		{"01ORDER:2:1700000000000:7:x", 0, true},
		{"01ORDER:2:1700000000000:7:1999:1", 0, true},
	}
	for _, tc := range tests {
		b, err := keyspace.ParseBuyer(tc.value)
		switch {
		case tc.bad && !errors.Is(err, keyspace.ErrBadEntry):
			t.Errorf("%q: %+v, %v; want ErrBadEntry", tc.value, b, err)
		case tc.bad:
		case err != nil || priceOf(b.UnitPriceCents) != tc.price:
			t.Errorf("%q: price %d, %v; want %d", tc.value, priceOf(b.UnitPriceCents), err, tc.price)
		case b.String() != tc.value && len(tc.value) > len("01ORDER:2:1700000000000"):
			t.Errorf("%q reads back as %q", tc.value, b.String())
		}
	}
}

// TestEntryPrice: a stream entry's price is read when present, refused when
// malformed, and absent in entries queued by older servers.
func TestEntryPrice(t *testing.T) {
	t.Parallel()
	entry := func(price any) map[string]any {
		v := map[string]any{"id": "01ORDER", "item": "7", "variant": "3", "user": "ann", "qty": "1", "idem": "", "ts": "1700000000000"}
		if price != nil {
			v["price"] = price
		}
		return v
	}
	if e, err := keyspace.ParseEntry("1-1", entry("1999")); err != nil || priceOf(e.UnitPriceCents) != 1999 {
		t.Errorf("priced entry: %+v, %v", e, err)
	}
	if e, err := keyspace.ParseEntry("1-1", entry(nil)); err != nil || e.UnitPriceCents != nil {
		t.Errorf("entry of an older server: %+v, %v; want no price", e, err)
	}
	for _, bad := range []string{"-1", "12.5", "x"} {
		if _, err := keyspace.ParseEntry("1-1", entry(bad)); !errors.Is(err, keyspace.ErrBadEntry) {
			t.Errorf("price %q: %v; want ErrBadEntry", bad, err)
		}
	}
}

func priceOf(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}
