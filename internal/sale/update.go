package sale

import (
	"context"
	"errors"
	"fmt"

	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/audit"
	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/stock"
	"github.com/seckill/seckill/internal/sync/stocksync"
)

// Update applies an admin's change to MySQL and Redis. A stock_total
// change moves available stock by the same delta in both stores. Redis is
// changed while MySQL holds the item's row lock, so concurrent updates (and
// warms, which take a shared lock) see one consistent order of changes.
// Redis goes first because only Redis knows the stock reserved but not yet
// persisted: it refuses atomically to go below zero (stock.ErrStockConflict).
// If MySQL then fails to commit, the Redis change is undone. The fields
// that changed are recorded in the audit log, before and after. It returns
// catalog.ErrNotFound, catalog.ErrStockConflict or stock.ErrStockConflict.
func (s *Service) Update(ctx context.Context, id int64, p catalog.Patch) (catalog.Item, error) {
	return s.update(ctx, id, p, audit.ActionUpdate)
}

// update is Update recorded as action: pause, resume and end are updates
// too, but the log names them.
func (s *Service) update(ctx context.Context, id int64, p catalog.Patch, action string) (catalog.Item, error) {
	// A change half applied must not be abandoned because the client hung up.
	ctx = context.WithoutCancel(ctx)
	var cur, it catalog.Item
	// A drift correction measuring between our Redis and MySQL steps would
	// take our change for drift and undo it; and the sale's settings go to
	// Redis under the lock too, or two updates could land them out of order.
	err := s.sync.Exclusive(ctx, id, func(ctx context.Context) error {
		var err error
		if cur, it, err = s.updateLocked(ctx, id, p); err != nil {
			return err
		}
		return s.stock.SetMeta(ctx, id, stocksync.MetaOf(it))
	})
	if err != nil {
		return catalog.Item{}, fmt.Errorf("update item %d: %w", id, err)
	}
	if before, after := changed(saleFields(cur), saleFields(it)); len(after) > 0 {
		s.record(ctx, action, id, before, after)
	}
	return it, nil
}

// updateLocked returns the sale as it was and as it is now.
func (s *Service) updateLocked(ctx context.Context, id int64, p catalog.Patch) (was, it catalog.Item, err error) {
	var adj adjustment
	it, err = s.items.Update(ctx, id, p, func(tx *gorm.DB, cur, next catalog.Item) error {
		was = cur
		// Before Redis changes: the events may still fail the update.
		if err := s.announceChange(tx, cur, next); err != nil {
			return err
		}
		// Only a sale of one variant changes its stock here (the store
		// refuses it otherwise).
		delta := int64(next.StockTotal - cur.StockTotal)
		if delta == 0 {
			return nil
		}
		return s.adjust(ctx, &adj, id, cur.Variants[0].ID, delta)
	})
	if err != nil {
		s.undo(adj)
	}
	return was, it, err
}

// adjustment is a Redis stock change made while MySQL's is not committed.
type adjustment struct{ item, variant, delta int64 }

// adjust changes a variant's stock in Redis and records it in adj, so it can
// be undone if MySQL does not commit. A sale Redis does not hold is left to
// its next warm, which copies MySQL's stock.
func (s *Service) adjust(ctx context.Context, adj *adjustment, item, variant, delta int64) error {
	if delta == 0 {
		return nil
	}
	if _, err := s.stock.Adjust(ctx, item, variant, delta); err != nil {
		if errors.Is(err, stock.ErrNotWarmed) {
			return nil
		}
		return err
	}
	*adj = adjustment{item, variant, delta}
	return nil
}

// undo reverses a Redis stock change whose MySQL update did not commit.
// If Redis refuses or is unreachable the drift is logged; a warm repairs it
// from MySQL.
func (s *Service) undo(adj adjustment) {
	if adj.delta == 0 {
		return
	}
	if _, err := s.stock.Adjust(context.Background(), adj.item, adj.variant, -adj.delta); err != nil {
		s.log.Error("could not undo redis stock change; re-warm the item", "item_id", adj.item,
			"variant_id", adj.variant, "delta", adj.delta, "err", err)
	}
}
