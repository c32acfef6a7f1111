package stock

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
)

// Snapshot is one sale's Redis state read at a single instant (MULTI/EXEC).
type Snapshot struct {
	Warm     bool
	Stock    int64
	Variants map[int64]int64  // variant id -> stock
	Pending  []keyspace.Entry // orders in the stream, persisted or not yet
	// LastID is the id of the newest entry ever added to the stream. Every
	// reservation up to it is reflected in Stock, none after it.
	LastID string
}

// Snapshot reads a sale's stock and stream together, without blocking
// purchases.
func (s *Store) Snapshot(ctx context.Context, itemID int64) (Snapshot, error) {
	k := s.keys.Item(itemID)
	var (
		stock    *redis.StringCmd
		variants *redis.MapStringStringCmd
		info     *redis.XInfoStreamCmd
		msgs     *redis.XMessageSliceCmd
	)
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		stock = p.Get(ctx, k.Stock())
		variants = p.HGetAll(ctx, k.VariantStock())
		info = p.XInfoStream(ctx, k.Stream())
		msgs = p.XRange(ctx, k.Stream(), "-", "+")
		return nil
	})
	n, stockErr := stock.Int64()
	if errors.Is(stockErr, redis.Nil) {
		return Snapshot{}, nil // not warm: nothing else matters
	}
	if err != nil {
		return Snapshot{}, fmt.Errorf("snapshot item %d: %w", itemID, err)
	}
	snap := Snapshot{Warm: true, Stock: n, Variants: parseCounts(variants.Val()), LastID: info.Val().LastGeneratedID}
	for _, m := range msgs.Val() {
		e, err := keyspace.ParseEntry(m.ID, m.Values)
		if err != nil {
			return Snapshot{}, err
		}
		snap.Pending = append(snap.Pending, e)
	}
	return snap, nil
}
