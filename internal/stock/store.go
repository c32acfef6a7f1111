package stock

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/coalesce"
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
	batcher *coalesce.Batcher[Request, Outcome]
	// onReturn is told, in this process, whenever stock comes back to a sale.
	onReturn func(keyspace.Return)
	// onQueued is told of every sale a batch queued new orders for.
	onQueued func(itemID int64)
	limits   Limits // set before Run, read by every batch
	durable  durability
}

// Reservations run in batches of at most batchMax requests, with at most
// batchWorkers batches in flight: enough to keep Redis busy while the server
// prepares the next batch, few enough that batches form under load.
const (
	batchWorkers = 4
	batchMax     = 128
)

// NewStore returns a store whose keys start with keys' prefix.
func NewStore(rdb redis.UniversalClient, keys keyspace.Space) *Store {
	s := &Store{
		rdb:     rdb,
		keys:    keys,
		reserve: redis.NewScript(lua.Reserve),
		release: redis.NewScript(lua.Release),
		adjust:  redis.NewScript(lua.Adjust),
	}
	s.batcher = coalesce.New(batchWorkers, batchMax, s.ReserveBatch)
	return s
}

// Run makes concurrent Reserve calls share script calls until ctx ends.
func (s *Store) Run(ctx context.Context) error { return s.batcher.Run(ctx) }

// OnBatch tells observe the size of every batch of reservations.
func (s *Store) OnBatch(observe func(n int)) { s.batcher.Observe = observe }

// OnReturn tells f whenever this process gives stock back to a sale. Other
// processes hear of it on the ReturnsChannel. Set it before serving.
func (s *Store) OnReturn(f func(keyspace.Return)) { s.onReturn = f }

// OnQueued tells f of every sale for which a reservation batch queued new
// orders, so this process's persisters read its stream at once. Set it
// before serving.
func (s *Store) OnQueued(f func(itemID int64)) { s.onQueued = f }

// queued reports the sale of reqs if any of out is a new reservation.
func (s *Store) queued(reqs []Request, out []Outcome) {
	if s.onQueued == nil {
		return
	}
	for _, o := range out {
		if o.Err == nil && !o.Replayed {
			s.onQueued(reqs[0].ItemID)
			return
		}
	}
}

// returned reports a return of stock here and to every other server.
func (s *Store) returned(ctx context.Context, r keyspace.Return) {
	if r.Count <= 0 {
		return
	}
	if s.onReturn != nil {
		s.onReturn(r)
	}
	// Best effort: a server that misses it re-checks its sold-out mark
	// within a second anyway.
	s.rdb.Publish(context.WithoutCancel(ctx), s.keys.ReturnsChannel(), r.String())
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

// Release forgets orderID's buyer and gives back its stock to variantID if
// it is userID's current order for the item. Only release orders no longer
// queued in the stream (see lua/release.lua). It reports whether anything
// was released; repeating it is safe.
func (s *Store) Release(ctx context.Context, itemID, variantID int64, userID, orderID string) (bool, error) {
	return s.runRelease(ctx, itemID, variantID, userID, orderID, "1")
}

// Forget forgets orderID's buyer without touching stock: for orders MySQL
// refused, whose stock never existed there.
func (s *Store) Forget(ctx context.Context, itemID int64, userID, orderID string) (bool, error) {
	return s.runRelease(ctx, itemID, 0, userID, orderID, "0")
}

func (s *Store) runRelease(ctx context.Context, itemID, variantID int64, userID, orderID, restock string) (bool, error) {
	k := s.keys.Item(itemID)
	keys := []string{k.Stock(), k.Buyers(), k.Returns(), k.VariantStock()}
	res, err := s.release.Run(ctx, s.rdb, keys, userID, orderID, restock, variantID).Int64Slice()
	if err != nil {
		return false, fmt.Errorf("release order %s: %w", orderID, err)
	}
	if len(res) != 3 {
		return false, fmt.Errorf("release order %s: reply %v", orderID, res)
	}
	if res[0] == releaseBadArgs {
		return false, fmt.Errorf("release order %s: %w", orderID, ErrInvalidArgument)
	}
	s.returned(ctx, keyspace.Return{ItemID: itemID, Count: res[2], Left: res[1]})
	return res[0] == releaseDone, nil
}

// Adjust adds delta to a variant's available stock in Redis, and to its
// sale's, and returns the variant's. It returns ErrStockConflict if that
// would go below zero and ErrNotWarmed if Redis does not hold the variant.
func (s *Store) Adjust(ctx context.Context, itemID, variantID, delta int64) (int64, error) {
	k := s.keys.Item(itemID)
	keys := []string{k.Stock(), k.Returns(), k.VariantStock()}
	res, err := s.adjust.Run(ctx, s.rdb, keys, delta, variantID).Int64Slice()
	op := fmt.Sprintf("adjust stock of variant %d of item %d by %d", variantID, itemID, delta)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	if len(res) != 4 {
		return 0, fmt.Errorf("%s: reply %v", op, res)
	}
	switch res[0] {
	case adjustApplied:
		s.returned(ctx, keyspace.Return{ItemID: itemID, Count: res[2], Left: res[3]})
		return res[1], nil
	case adjustRefused:
		return res[1], fmt.Errorf("%s: %w", op, ErrStockConflict)
	case adjustNotWarmed:
		return 0, fmt.Errorf("%s: %w", op, ErrNotWarmed)
	case adjustBadArgs:
		return 0, fmt.Errorf("%s: %w", op, ErrInvalidArgument)
	}
	return 0, fmt.Errorf("%s: unknown code %d", op, res[0])
}

// Level is a warm sale's stock in Redis: the whole sale's and each variant's
// (by variant id), as the audit log shows it.
type Level struct {
	Total    int64           `json:"stock"`
	Variants map[int64]int64 `json:"variants"`
}

// Levels returns the stock in Redis of each item that is warm; items missing
// from the map are not warm.
func (s *Store) Levels(ctx context.Context, itemIDs []int64) (map[int64]Level, error) {
	totals := make([]*redis.StringCmd, len(itemIDs))
	variants := make([]*redis.MapStringStringCmd, len(itemIDs))
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range itemIDs {
			k := s.keys.Item(id)
			totals[i], variants[i] = p.Get(ctx, k.Stock()), p.HGetAll(ctx, k.VariantStock())
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("read stock levels: %w", err)
	}
	levels := make(map[int64]Level, len(itemIDs))
	for i, c := range totals {
		if n, err := c.Int64(); err == nil {
			levels[itemIDs[i]] = Level{Total: n, Variants: parseCounts(variants[i].Val())}
		}
	}
	return levels, nil
}

// parseCounts reads a hash of id -> integer.
func parseCounts(h map[string]string) map[int64]int64 {
	out := make(map[int64]int64, len(h))
	for k, v := range h {
		id, err1 := strconv.ParseInt(k, 10, 64)
		n, err2 := strconv.ParseInt(v, 10, 64)
		if err1 == nil && err2 == nil {
			out[id] = n
		}
	}
	return out
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

// IdempotencyKeyUsed reports whether userID's key has reserved in the
// sale: a cheap look, without the reserve script, for a server about to
// turn the request away as sold out.
func (s *Store) IdempotencyKeyUsed(ctx context.Context, itemID int64, userID, key string) (bool, error) {
	used, err := s.rdb.HExists(ctx, s.keys.Item(itemID).Idempotency(), userID+"\n"+key).Result()
	if err != nil {
		return false, fmt.Errorf("look up idempotency key: %w", err)
	}
	return used, nil
}

// WarmItems returns the ids of every item that has been warmed.
func (s *Store) WarmItems(ctx context.Context) ([]int64, error) {
	members, err := s.rdb.SMembers(ctx, s.keys.Registry()).Result()
	if err != nil {
		return nil, fmt.Errorf("read warmed items: %w", err)
	}
	return keyspace.RegistryIDs(members), nil
}

// Meta is what the scripts enforce of a sale: its window, the per-shopper
// limit in the whole sale and the one that applies to each variant, which
// variant a purchase naming none buys, and whether purchases need the
// waiting room's admission.
type Meta struct {
	StartsAt, EndsAt time.Time
	Limit            int
	RoomRate         int // 0: no waiting room
	Paused           bool
	// Draw: only shoppers holding an open offer (keyspace.Item.DrawOffers)
	// may buy.
	Draw bool
	// Only is the sale's variant when it has just one, else 0: a purchase
	// that names no variant must name one then.
	Only          int64
	VariantLimits map[int64]int // variant id -> the limit that applies to it
	// VariantPrices is each variant's unit price in cents (its own, else
	// the sale's): the script writes it into every order it takes, so an
	// order keeps the price it was taken at whatever an admin changes after.
	VariantPrices map[int64]int64
}

func (m Meta) fields() []any {
	f := []any{"starts_ms", m.StartsAt.UnixMilli(), "ends_ms", m.EndsAt.UnixMilli(), "limit", m.Limit, "room", m.RoomRate,
		"paused", flag(m.Paused), "draw", flag(m.Draw)}
	if m.Only != 0 {
		f = append(f, "only", m.Only)
	}
	// Every variant's limit is written, so none is ever left stale; the
	// script reads them only when one differs from the sale's.
	own := "0"
	for id, n := range m.VariantLimits {
		f = append(f, "limit:"+strconv.FormatInt(id, 10), n)
		if n != m.Limit {
			own = "1"
		}
	}
	for id, p := range m.VariantPrices {
		f = append(f, "price:"+strconv.FormatInt(id, 10), p)
	}
	return append(f, "vlimits", own)
}

func flag(b bool) int {
	if b {
		return 1
	}
	return 0
}

// SetMeta updates what the reserve script enforces of a sale, and the
// prices it takes orders at. It is one HSET, so it never races a purchase:
// an order taken before it keeps the old price, one taken after gets the
// new. On a sale that is not warm it does nothing (the next warm copies it
// from MySQL). The sale's variants must be the ones Redis holds: a change
// of variants warms the sale instead.
func (s *Store) SetMeta(ctx context.Context, itemID int64, m Meta) error {
	k := s.keys.Item(itemID)
	n, err := s.rdb.Exists(ctx, k.Meta()).Result()
	if err != nil || n == 0 {
		return err
	}
	err = s.rdb.HSet(ctx, k.Meta(), m.fields()...).Err()
	if err != nil {
		return fmt.Errorf("set meta of item %d: %w", itemID, err)
	}
	return nil
}
