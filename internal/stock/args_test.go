package stock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/stock"
)

// The scripts trust no caller: a malformed argument is refused with a code
// and changes nothing, whatever the HTTP layer let through.
func TestScriptsRefuseMalformedArguments(t *testing.T) {
	s, rdb, keys := newSale(t, 10, 5)
	ctx := context.Background()
	now := t0.Add(time.Minute).UnixMilli()
	for _, tc := range []struct {
		name    string
		request []any // now, user, quantity, order, idem, admitted, variant, client
		code    int64
		detail  string
	}{
		{"quantity zero", []any{now, "u", "0", "o1", "", "0", "", ""}, stock.ReserveBadQuantity, "quantity"},
		{"quantity negative", []any{now, "u", "-2", "o1", "", "0", "", ""}, stock.ReserveBadQuantity, "quantity"},
		{"quantity fraction", []any{now, "u", "1.5", "o1", "", "0", "", ""}, stock.ReserveBadQuantity, "quantity"},
		{"quantity not a number", []any{now, "u", "two", "o1", "", "0", "", ""}, stock.ReserveBadQuantity, "quantity"},
		{"quantity exponent", []any{now, "u", "1e3", "o1", "", "0", "", ""}, stock.ReserveBadQuantity, "quantity"},
		{"quantity empty", []any{now, "u", "", "o1", "", "0", "", ""}, stock.ReserveBadQuantity, "quantity"},
		{"now not a number", []any{"soon", "u", "1", "o1", "", "0", "", ""}, stock.ReserveBadArgument, "now"},
		{"no user", []any{now, "", "1", "o1", "", "0", "", ""}, stock.ReserveBadArgument, "user id"},
		{"no order id", []any{now, "u", "1", "", "", "0", "", ""}, stock.ReserveBadArgument, "order id"},
		{"admitted not a flag", []any{now, "u", "1", "o1", "", "yes", "", ""}, stock.ReserveBadArgument, "admitted"},
		{"variant not a number", []any{now, "u", "1", "o1", "", "0", "red", ""}, stock.ReserveBadArgument, "variant id"},
		// Past 15 digits a Lua double may round (2^53 + 1 has 16).
		{"quantity of 16 digits", []any{now, "u", "9007199254740993", "o1", "", "0", "", ""}, stock.ReserveBadQuantity, "quantity"},
		{"variant of 16 digits", []any{now, "u", "1", "o1", "", "0", "1000000000000000", ""}, stock.ReserveBadArgument, "variant id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, detail, err := s.ReserveRaw(ctx, 1, tc.request...)
			if err != nil || code != tc.code || detail != tc.detail {
				t.Fatalf("reserve = code %d detail %q err %v, want code %d detail %q", code, detail, err, tc.code, tc.detail)
			}
		})
	}
	t.Run("adjust", func(t *testing.T) {
		for _, args := range [][2]any{{"1.5", 1}, {"x", 1}, {1, "red"}, {"", 1}, {"9007199254740993", 1}, {1, "-1000000000000000"}} {
			if code, err := s.AdjustRaw(ctx, 1, args[0], args[1]); err != nil || code != stock.AdjustBadArgs {
				t.Errorf("adjust(%v, %v) = %d, %v; want code %d", args[0], args[1], code, err, stock.AdjustBadArgs)
			}
		}
		// A sign and 15 digits is whole: refused as too much to take back.
		if code, err := s.AdjustRaw(ctx, 1, "-999999999999999", 1); err != nil || code == stock.AdjustBadArgs {
			t.Errorf("adjust by a sign and 15 digits = %d, %v; want a code other than %d", code, err, stock.AdjustBadArgs)
		}
	})
	t.Run("release", func(t *testing.T) {
		for _, args := range [][4]any{{"", "o1", "1", 1}, {"u", "", "1", 1}, {"u", "o1", "yes", 1}, {"u", "o1", "1", "red"}, {"u", "o1", "1", "1000000000000000"}} {
			if code, err := s.ReleaseRaw(ctx, 1, args[0], args[1], args[2], args[3]); err != nil || code != stock.ReleaseBadArgs {
				t.Errorf("release(%v) = %d, %v; want code %d", args, code, err, stock.ReleaseBadArgs)
			}
		}
	})
	// Nothing changed: all the stock is there, nobody bought, nothing queued.
	if n, _ := rdb.Get(ctx, keys.Item(1).Stock()).Int64(); n != 10 {
		t.Errorf("stock after refusals = %d, want 10", n)
	}
	if n := rdb.HLen(ctx, keys.Item(1).Buyers()).Val() + rdb.XLen(ctx, keys.Item(1).Stream()).Val(); n != 0 {
		t.Errorf("buyers + stream entries after refusals = %d, want 0", n)
	}
	// Through the typed API, a quantity below 1 is the same refusal.
	_, err := s.Reserve(ctx, req("v", 0, t0.Add(time.Minute)))
	if !errors.Is(err, stock.ErrInvalidQuantity) {
		t.Fatalf("Reserve quantity 0: err %v, want ErrInvalidQuantity", err)
	}
}
