package stock

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/lua"
)

// Store runs the stock scripts against Redis.
type Store struct {
	rdb     redis.UniversalClient
	keys    keyspace.Space
	reserve *redis.Script
	release *redis.Script
	adjust  *redis.Script
}

// NewStore returns a store whose keys start with keys' prefix.
func NewStore(rdb redis.UniversalClient, keys keyspace.Space) *Store {
	return &Store{
		rdb:     rdb,
		keys:    keys,
		reserve: redis.NewScript(lua.Reserve),
		release: redis.NewScript(lua.Release),
		adjust:  redis.NewScript(lua.Adjust),
	}
}

func (s *Store) scripts() []*redis.Script { return []*redis.Script{s.reserve, s.release, s.adjust} }

// LoadScripts loads every script into Redis's script cache. Script.Run falls
// back to EVAL on NOSCRIPT anyway; loading early surfaces a broken script at
// start-up instead of at the first purchase.
func (s *Store) LoadScripts(ctx context.Context) error {
	for _, sc := range s.scripts() {
		if err := sc.Load(ctx, s.rdb).Err(); err != nil {
			return fmt.Errorf("load script: %w", err)
		}
	}
	return nil
}

// ScriptsLoaded reports whether Redis has every script cached.
func (s *Store) ScriptsLoaded(ctx context.Context) (bool, error) {
	hashes := make([]string, 0, 3)
	for _, sc := range s.scripts() {
		hashes = append(hashes, sc.Hash())
	}
	ok, err := s.rdb.ScriptExists(ctx, hashes...).Result()
	if err != nil {
		return false, fmt.Errorf("script exists: %w", err)
	}
	for _, b := range ok {
		if !b {
			return false, nil
		}
	}
	return true, nil
}

// Request asks for a reservation.
type Request struct {
	ItemID         int64
	UserID         string
	Quantity       int
	OrderID        string // used if the reservation succeeds
	IdempotencyKey string // "" for none
	Now            time.Time
}

// Reservation is a successful (or replayed) reservation.
type Reservation struct {
	keyspace.Buyer
	StockLeft int64 // -1 when replayed
	Replayed  bool  // the idempotency key had already reserved this order
}

// Reserve runs lua/reserve.lua. It returns ErrNotWarmed, ErrNotStarted,
// ErrEnded, ErrOverLimit, *AlreadyPurchasedError, *SoldOutError or
// ErrIdempotencyConflict when no stock was taken, or a Redis error.
func (s *Store) Reserve(ctx context.Context, r Request) (Reservation, error) {
	k := s.keys.Item(r.ItemID)
	res, err := s.reserve.Run(ctx, s.rdb, k.ReserveKeys(),
		r.Now.UnixMilli(), r.UserID, r.Quantity, r.OrderID, r.IdempotencyKey, r.ItemID).Slice()
	if err != nil {
		return Reservation{}, fmt.Errorf("reserve item %d: %w", r.ItemID, err)
	}
	code, detail, left, err := reply3(res)
	if err != nil {
		return Reservation{}, fmt.Errorf("reserve item %d: %w", r.ItemID, err)
	}
	return reserveResult(r, code, detail, left)
}

// reserveResult maps the script's return codes (see its header) to results.
func reserveResult(r Request, code int64, detail string, left int64) (Reservation, error) {
	switch code {
	case 0, 1, 6:
		b, err := keyspace.ParseBuyer(detail)
		if err != nil {
			return Reservation{}, err
		}
		switch {
		case code == 6:
			return Reservation{}, &AlreadyPurchasedError{Existing: b}
		case code == 1 && b.Quantity != r.Quantity:
			return Reservation{}, ErrIdempotencyConflict
		case code == 1:
			return Reservation{Buyer: b, StockLeft: -1, Replayed: true}, nil
		}
		return Reservation{Buyer: b, StockLeft: left}, nil
	case 2:
		return Reservation{}, ErrNotWarmed
	case 3:
		return Reservation{}, ErrNotStarted
	case 4:
		return Reservation{}, ErrEnded
	case 5:
		return Reservation{}, ErrOverLimit
	case 7:
		return Reservation{}, &SoldOutError{Left: left}
	}
	return Reservation{}, fmt.Errorf("reserve: unknown code %d", code)
}

func reply3(res []any) (code int64, detail string, n int64, err error) {
	if len(res) != 3 {
		return 0, "", 0, fmt.Errorf("script reply %v: want 3 values", res)
	}
	code, ok1 := res[0].(int64)
	detail, ok2 := res[1].(string)
	n, ok3 := res[2].(int64)
	if !ok1 || !ok2 || !ok3 {
		return 0, "", 0, fmt.Errorf("script reply %v: unexpected types", res)
	}
	return code, detail, n, nil
}

// Release forgets orderID's buyer and gives back its stock if it is userID's
// current order for the item. Only release orders no longer queued in the
// stream (see lua/release.lua). It reports whether anything was released;
// repeating it is safe.
func (s *Store) Release(ctx context.Context, itemID int64, userID, orderID string) (bool, error) {
	return s.runRelease(ctx, itemID, userID, orderID, "1")
}

// Forget forgets orderID's buyer without touching stock: for orders MySQL
// refused, whose stock never existed there.
func (s *Store) Forget(ctx context.Context, itemID int64, userID, orderID string) (bool, error) {
	return s.runRelease(ctx, itemID, userID, orderID, "0")
}

func (s *Store) runRelease(ctx context.Context, itemID int64, userID, orderID, restock string) (bool, error) {
	k := s.keys.Item(itemID)
	res, err := s.release.Run(ctx, s.rdb, []string{k.Stock(), k.Buyers()}, userID, orderID, restock).Int64Slice()
	if err != nil {
		return false, fmt.Errorf("release order %s: %w", orderID, err)
	}
	return len(res) == 2 && res[0] == 1, nil
}

// Adjust adds delta to the available stock in Redis. It returns
// ErrStockConflict if that would go below zero and ErrNotWarmed if the sale
// has no stock in Redis.
func (s *Store) Adjust(ctx context.Context, itemID, delta int64) (int64, error) {
	res, err := s.adjust.Run(ctx, s.rdb, []string{s.keys.Item(itemID).Stock()}, delta).Int64Slice()
	if err != nil {
		return 0, fmt.Errorf("adjust stock of item %d: %w", itemID, err)
	}
	if len(res) != 2 {
		return 0, fmt.Errorf("adjust stock of item %d: reply %v", itemID, res)
	}
	switch res[0] {
	case 0:
		return res[1], nil
	case 1:
		return res[1], fmt.Errorf("adjust stock of item %d by %d: %w", itemID, delta, ErrStockConflict)
	default:
		return 0, fmt.Errorf("adjust stock of item %d: %w", itemID, ErrNotWarmed)
	}
}

// Levels returns the stock in Redis of each item that is warm; items missing
// from the map are not warm.
func (s *Store) Levels(ctx context.Context, itemIDs []int64) (map[int64]int64, error) {
	cmds := make([]*redis.StringCmd, len(itemIDs))
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range itemIDs {
			cmds[i] = p.Get(ctx, s.keys.Item(id).Stock())
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("read stock levels: %w", err)
	}
	levels := make(map[int64]int64, len(itemIDs))
	for i, c := range cmds {
		if n, err := c.Int64(); err == nil {
			levels[itemIDs[i]] = n
		}
	}
	return levels, nil
}

// BuyerOf returns, for each item where userID holds an active reservation in
// Redis, that reservation.
func (s *Store) BuyerOf(ctx context.Context, itemIDs []int64, userID string) (map[int64]keyspace.Buyer, error) {
	cmds := make([]*redis.StringCmd, len(itemIDs))
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range itemIDs {
			cmds[i] = p.HGet(ctx, s.keys.Item(id).Buyers(), userID)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("read buyers: %w", err)
	}
	out := make(map[int64]keyspace.Buyer)
	for i, c := range cmds {
		if v, err := c.Result(); err == nil {
			b, err := keyspace.ParseBuyer(v)
			if err != nil {
				return nil, err
			}
			out[itemIDs[i]] = b
		}
	}
	return out, nil
}

// WarmItems returns the ids of every item that has been warmed.
func (s *Store) WarmItems(ctx context.Context) ([]int64, error) {
	members, err := s.rdb.SMembers(ctx, s.keys.Registry()).Result()
	if err != nil {
		return nil, fmt.Errorf("read warmed items: %w", err)
	}
	ids := make([]int64, 0, len(members))
	for _, m := range members {
		if id, err := strconv.ParseInt(m, 10, 64); err == nil {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// SetMeta updates the sale window and per-user limit the reserve script
// enforces. It is one HSET, so it never races a purchase; on a sale that is
// not warm it does nothing (the next warm copies them from MySQL).
func (s *Store) SetMeta(ctx context.Context, itemID int64, startsAt, endsAt time.Time, limit int) error {
	k := s.keys.Item(itemID)
	n, err := s.rdb.Exists(ctx, k.Meta()).Result()
	if err != nil || n == 0 {
		return err
	}
	err = s.rdb.HSet(ctx, k.Meta(), "starts_ms", startsAt.UnixMilli(), "ends_ms", endsAt.UnixMilli(), "limit", limit).Err()
	if err != nil {
		return fmt.Errorf("set meta of item %d: %w", itemID, err)
	}
	return nil
}
