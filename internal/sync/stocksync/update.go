package stocksync

import (
	"context"
	"errors"
	"fmt"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/stock"
)

// UpdateItem applies an admin's change to MySQL and Redis. A stock_total
// change moves available stock by the same delta: Redis first, because only
// Redis knows the stock reserved but not yet persisted, atomically refusing to
// go below zero (stock.ErrStockConflict); then MySQL under a row lock. If
// MySQL refuses, the Redis change is undone. It returns catalog.ErrNotFound,
// catalog.ErrStockConflict or stock.ErrStockConflict.
func (s *Syncer) UpdateItem(ctx context.Context, id int64, p catalog.Patch) (catalog.Item, error) {
	items := catalog.NewStore(s.db)
	cur, err := items.Get(ctx, id)
	if err != nil {
		return catalog.Item{}, err
	}
	delta := int64(p.Apply(cur).StockTotal - cur.StockTotal)
	adjusted := false
	if delta != 0 {
		_, err := s.stock.Adjust(ctx, id, delta)
		switch {
		case err == nil:
			adjusted = true
		case !errors.Is(err, stock.ErrNotWarmed):
			return catalog.Item{}, err
		}
	}
	it, err := items.Update(ctx, id, p)
	if err != nil {
		if adjusted {
			s.undoAdjust(id, delta)
		}
		return catalog.Item{}, err
	}
	if err := s.stock.SetMeta(ctx, id, it.StartsAt, it.EndsAt, it.PerUserLimit); err != nil {
		return catalog.Item{}, fmt.Errorf("update item %d: %w", id, err)
	}
	return it, nil
}

// undoAdjust reverses a Redis stock change MySQL refused. It runs even if the
// request was cancelled; if Redis is unreachable the drift is logged and the
// next warm repairs it from MySQL.
func (s *Syncer) undoAdjust(id, delta int64) {
	ctx := context.Background()
	if _, err := s.stock.Adjust(ctx, id, -delta); err != nil {
		s.log.Error("could not undo redis stock change; re-warm the item", "item_id", id, "delta", delta, "err", err)
	}
}
