package sale

import (
	"context"
	"errors"
	"fmt"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/stock"
)

// Update applies an admin's change to MySQL and Redis. A stock_total
// change moves available stock by the same delta in both stores. Redis is
// changed while MySQL holds the item's row lock, so concurrent updates (and
// warms, which take a shared lock) see one consistent order of changes.
// Redis goes first because only Redis knows the stock reserved but not yet
// persisted: it refuses atomically to go below zero (stock.ErrStockConflict).
// If MySQL then fails to commit, the Redis change is undone. It returns
// catalog.ErrNotFound, catalog.ErrStockConflict or stock.ErrStockConflict.
func (s *Service) Update(ctx context.Context, id int64, p catalog.Patch) (catalog.Item, error) {
	// A change half applied must not be abandoned because the client hung up.
	ctx = context.WithoutCancel(ctx)
	var it catalog.Item
	// A drift correction measuring between our Redis and MySQL steps would
	// take our change for drift and undo it; and the sale's settings go to
	// Redis under the lock too, or two updates could land them out of order.
	err := s.sync.Exclusive(ctx, id, func(ctx context.Context) error {
		var err error
		if it, err = s.updateLocked(ctx, id, p); err != nil {
			return err
		}
		meta := stock.Meta{StartsAt: it.StartsAt, EndsAt: it.EndsAt, Limit: it.PerUserLimit, RoomRate: it.RoomRate}
		return s.stock.SetMeta(ctx, id, meta)
	})
	if err != nil {
		return catalog.Item{}, fmt.Errorf("update item %d: %w", id, err)
	}
	return it, nil
}

func (s *Service) updateLocked(ctx context.Context, id int64, p catalog.Patch) (catalog.Item, error) {
	var adjusted int64
	it, err := s.items.Update(ctx, id, p, func(cur, next catalog.Item) error {
		delta := int64(next.StockTotal - cur.StockTotal)
		if delta == 0 {
			return nil
		}
		if _, err := s.stock.Adjust(ctx, id, delta); err != nil {
			if errors.Is(err, stock.ErrNotWarmed) {
				return nil // the next warm copies MySQL's stock
			}
			return err
		}
		adjusted = delta
		return nil
	})
	if err != nil && adjusted != 0 {
		s.undoAdjust(id, adjusted)
	}
	return it, err
}

// undoAdjust reverses a Redis stock change whose MySQL update did not commit.
// If Redis refuses or is unreachable the drift is logged; a warm repairs it
// from MySQL.
func (s *Service) undoAdjust(id, delta int64) {
	if _, err := s.stock.Adjust(context.Background(), id, -delta); err != nil {
		s.log.Error("could not undo redis stock change; re-warm the item", "item_id", id, "delta", delta, "err", err)
	}
}
