package stock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/stock"
	"github.com/seckill/seckill/internal/testenv"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// newStore returns a store on a fresh key prefix and the raw client.
func newStore(tb testing.TB) (*stock.Store, *redis.Client, keyspace.Space) {
	tb.Helper()
	rdb, prefix := testenv.Redis(tb)
	keys := keyspace.New(prefix)
	return stock.NewStore(rdb, keys), rdb, keys
}

// newSale is newStore with sale 1 warmed as sale(total, limit) describes.
func newSale(tb testing.TB, total int64, limit int) (*stock.Store, *redis.Client, keyspace.Space) {
	tb.Helper()
	s, rdb, keys := newStore(tb)
	warm(tb, s, 1, sale(total, limit))
	return s, rdb, keys
}

// onEachRedis runs test in parallel on a single Redis and on a cluster,
// each with a store on a fresh key prefix.
func onEachRedis(t *testing.T, test func(t *testing.T, s *stock.Store, rdb redis.UniversalClient, keys keyspace.Space)) {
	t.Helper()
	for _, target := range testenv.RedisTargets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			rdb, prefix := testenv.RedisOn(t, target.Redis)
			keys := keyspace.New(prefix)
			test(t, stock.NewStore(rdb, keys), rdb, keys)
		})
	}
}

// warm puts a sale into Redis as if MySQL held st. A state that names no
// prices gets 100 cents for every variant: MySQL always has one, and the
// script takes no order without it.
func warm(tb testing.TB, s *stock.Store, itemID int64, st stock.State) {
	tb.Helper()
	if st.Meta.VariantPrices == nil {
		st.Meta.VariantPrices = make(map[int64]int64, len(st.Variants))
		for id := range st.Variants {
			st.Meta.VariantPrices[id] = 100
		}
	}
	err := s.Warm(context.Background(), itemID, func(context.Context, []keyspace.Entry) (stock.State, error) { return st, nil })
	if err != nil {
		tb.Fatalf("warm: %v", err)
	}
}

func sale(stockN int64, limit int) stock.State {
	// One variant, id 1, that purchases naming none buy.
	return stock.State{Variants: map[int64]int64{1: stockN},
		Meta: stock.Meta{StartsAt: t0, EndsAt: t0.Add(time.Hour), Limit: limit, Only: 1, VariantPrices: map[int64]int64{1: 100}}}
}

func req(user string, qty int, at time.Time) stock.Request {
	return stock.Request{ItemID: 1, UserID: user, Quantity: qty, OrderID: "order-" + user, Now: at}
}

// Serial: SCRIPT FLUSH empties the whole test Redis's script cache, and a
// parallel test loading a script would make "not loaded" untrue.
func TestScriptsLoad(t *testing.T) {
	s, rdb, _ := newStore(t)
	ctx := context.Background()
	if err := rdb.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.ScriptsLoaded(ctx); err != nil || ok {
		t.Fatalf("after SCRIPT FLUSH: loaded=%v err=%v, want false", ok, err)
	}
	if err := s.LoadScripts(ctx); err != nil {
		t.Fatalf("load: %v", err)
	}
	if ok, err := s.ScriptsLoaded(ctx); err != nil || !ok {
		t.Fatalf("after load: loaded=%v err=%v, want true", ok, err)
	}
}

func TestReserveCodes(t *testing.T) {
	t.Parallel()
	open := t0.Add(time.Minute)
	tests := []struct {
		name    string
		setup   func(*stock.Store)
		req     stock.Request
		wantErr error
		left    int64
	}{
		{name: "reserved", req: req("u1", 2, open), left: 8},
		{name: "not warmed", req: stock.Request{ItemID: 99, UserID: "u", Quantity: 1, OrderID: "o", Now: open}, wantErr: stock.ErrNotWarmed},
		{name: "one ms before opening", req: req("u1", 1, t0.Add(-time.Millisecond)), wantErr: stock.ErrNotStarted},
		{name: "at opening ms", req: req("u1", 1, t0), left: 9},
		{name: "at ending ms", req: req("u1", 1, t0.Add(time.Hour)), wantErr: stock.ErrEnded},
		{name: "over per-user limit", req: req("u1", 4, open), wantErr: stock.ErrOverLimit},
		{name: "already purchased", setup: buy("u1", 1, open), req: req("u1", 1, open), wantErr: stock.ErrAlreadyPurchased},
		{name: "more than left", setup: drain(9, open), req: req("u1", 2, open), wantErr: stock.ErrSoldOut},
		{name: "sold out", setup: drain(10, open), req: req("u1", 1, open), wantErr: stock.ErrSoldOut},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _, _ := newSale(t, 10, 3)
			if tc.setup != nil {
				tc.setup(s)
			}
			res, err := s.Reserve(context.Background(), tc.req)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if err == nil && (res.StockLeft != tc.left || res.OrderID != tc.req.OrderID || res.Quantity != tc.req.Quantity) {
				t.Fatalf("reservation = %+v, want order %s qty %d left %d", res, tc.req.OrderID, tc.req.Quantity, tc.left)
			}
		})
	}
}

func buy(user string, qty int, at time.Time) func(*stock.Store) {
	return func(s *stock.Store) {
		if _, err := s.Reserve(context.Background(), req(user, qty, at)); err != nil {
			panic(err)
		}
	}
}

// drain sells n single units to other shoppers.
func drain(n int, at time.Time) func(*stock.Store) {
	return func(s *stock.Store) {
		for i := range n {
			buy("other"+string(rune('a'+i)), 1, at)(s)
		}
	}
}

func TestAlreadyPurchasedCarriesTheOrder(t *testing.T) {
	t.Parallel()
	s, _, _ := newSale(t, 10, 1)
	ctx := context.Background()
	first, err := s.Reserve(ctx, req("alice", 1, t0))
	if err != nil {
		t.Fatal(err)
	}
	second := req("alice", 1, t0)
	second.OrderID = "another-id"
	_, err = s.Reserve(ctx, second)
	var ap *stock.AlreadyPurchasedError
	if !errors.As(err, &ap) || ap.Existing.OrderID != first.OrderID {
		t.Fatalf("err = %v, want AlreadyPurchasedError for %s", err, first.OrderID)
	}
}

func TestIdempotencyReplay(t *testing.T) {
	t.Parallel()
	s, rdb, keys := newSale(t, 10, 3)
	ctx := context.Background()
	r := req("alice", 2, t0)
	r.IdempotencyKey = "key-1"
	first, err := s.Reserve(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	r.OrderID = "retry-id" // a retry mints a new id; the first must come back
	again, err := s.Reserve(ctx, r)
	if err != nil || !again.Replayed || again.OrderID != first.OrderID {
		t.Fatalf("replay = %+v, %v; want the first order %s replayed", again, err, first.OrderID)
	}
	// Replays even after the sale ended: the first answer stands.
	r.Now = t0.Add(2 * time.Hour)
	if again, err = s.Reserve(ctx, r); err != nil || again.OrderID != first.OrderID {
		t.Fatalf("replay after end = %+v, %v", again, err)
	}
	r.Quantity = 1
	if _, err := s.Reserve(ctx, r); !errors.Is(err, stock.ErrIdempotencyConflict) {
		t.Fatalf("same key, other quantity: err = %v, want ErrIdempotencyConflict", err)
	}
	if n := rdb.XLen(ctx, keys.Item(1).Stream()).Val(); n != 1 {
		t.Fatalf("stream holds %d orders, want 1", n)
	}
	if left := rdb.Get(ctx, keys.Item(1).Stock()).Val(); left != "8" {
		t.Fatalf("stock = %s, want 8", left)
	}
}

func TestReleaseIsIdempotent(t *testing.T) {
	t.Parallel()
	s, rdb, keys := newSale(t, 5, 3)
	ctx := context.Background()
	res, err := s.Reserve(ctx, req("alice", 3, t0))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, false, false} {
		got, err := s.Release(ctx, 1, 1, "alice", res.OrderID)
		if err != nil || got != want {
			t.Fatalf("release #%d = %v, %v; want %v", i+1, got, err, want)
		}
	}
	if got, _ := s.Release(ctx, 1, 1, "alice", "not-her-order"); got {
		t.Fatal("released an order the shopper does not hold")
	}
	if left := rdb.Get(ctx, keys.Item(1).Stock()).Val(); left != "5" {
		t.Fatalf("stock = %s after release, want 5", left)
	}
	if _, err := s.Reserve(ctx, req("alice", 1, t0)); err != nil {
		t.Fatalf("buying again after release: %v", err)
	}
}

func TestAdjust(t *testing.T) {
	t.Parallel()
	s, _, _ := newSale(t, 5, 1)
	ctx := context.Background()
	if n, err := s.Adjust(ctx, 1, 1, -5); err != nil || n != 0 {
		t.Fatalf("adjust -5 = %d, %v; want 0", n, err)
	}
	if _, err := s.Adjust(ctx, 1, 1, -1); !errors.Is(err, stock.ErrStockConflict) {
		t.Fatalf("adjust below zero: err = %v, want ErrStockConflict", err)
	}
	if n, err := s.Adjust(ctx, 1, 1, 7); err != nil || n != 7 {
		t.Fatalf("adjust +7 = %d, %v; want 7", n, err)
	}
	if _, err := s.Adjust(ctx, 2, 1, 1); !errors.Is(err, stock.ErrNotWarmed) {
		t.Fatalf("adjust unknown sale: err = %v, want ErrNotWarmed", err)
	}
}

// TestReserveNeverOversells hammers one sale from 100 goroutines.
func TestReserveNeverOversells(t *testing.T) {
	t.Parallel()
	s, rdb, keys := newSale(t, 37, 2)
	ctx := context.Background()
	errs := make(chan error, 300)
	units := make(chan int, 300)
	for g := range 100 {
		go func() {
			for i := range 3 {
				r := req("u"+string(rune('A'+g%50)), 1+(g+i)%2, t0)
				r.OrderID = r.UserID + "-" + string(rune('0'+i)) + string(rune('a'+g))
				res, err := s.Reserve(ctx, r)
				if err == nil {
					units <- res.Quantity
				}
				errs <- err
			}
		}()
	}
	sold := 0
	for range 300 {
		if err := <-errs; err != nil && !errors.Is(err, stock.ErrSoldOut) && !errors.Is(err, stock.ErrAlreadyPurchased) {
			t.Fatalf("unexpected error: %v", err)
		}
	}
	close(units)
	for u := range units {
		sold += u
	}
	left, _ := rdb.Get(ctx, keys.Item(1).Stock()).Int()
	if sold+left != 37 || left < 0 {
		t.Fatalf("sold %d + left %d != 37", sold, left)
	}
	buyers := rdb.HLen(ctx, keys.Item(1).Buyers()).Val()
	if n := rdb.XLen(ctx, keys.Item(1).Stream()).Val(); n != buyers {
		t.Fatalf("stream has %d orders but %d buyers", n, buyers)
	}
}
