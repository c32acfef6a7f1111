package sale

import (
	"context"
	"fmt"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/sync/stocksync"
)

// UpdateVariant applies an admin's change to one variant of a sale, in both
// stores, with Update's guarantees: a stock_total change moves the variant's
// available stock (and its sale's) by the same delta in Redis and MySQL
// under the sale's locks, Redis refusing atomically to take back stock that
// is reserved. It returns catalog.ErrNotFound, catalog.ErrVariantNotFound,
// catalog.ErrLabelTaken, catalog.ErrStockConflict or stock.ErrStockConflict.
func (s *Service) UpdateVariant(ctx context.Context, itemID, variantID int64, p catalog.VariantPatch) (catalog.Item, error) {
	ctx = context.WithoutCancel(ctx)
	var it catalog.Item
	err := s.sync.Exclusive(ctx, itemID, func(ctx context.Context) error {
		var adj adjustment
		var err error
		it, err = s.items.UpdateVariant(ctx, itemID, variantID, p, func(_ catalog.Item, cur, next catalog.Variant) error {
			return s.adjust(ctx, &adj, itemID, variantID, int64(next.StockTotal-cur.StockTotal))
		})
		if err != nil {
			s.undo(adj)
			return err
		}
		// The variant's own limit may have changed.
		return s.stock.SetMeta(ctx, itemID, stocksync.MetaOf(it))
	})
	if err != nil {
		return catalog.Item{}, fmt.Errorf("update variant %d of item %d: %w", variantID, itemID, err)
	}
	return it, nil
}

// AddVariant adds a variant to a sale that has not opened, and warms the
// sale again so Redis sells it. A failed warm is logged, not returned: MySQL
// has the variant, and the reconciliation or the admin's warm brings Redis
// in step before the opening. It returns catalog.ErrNotFound,
// catalog.ErrSaleOpened, catalog.ErrVariantCount and catalog.ErrLabelTaken.
func (s *Service) AddVariant(ctx context.Context, itemID int64, v catalog.Variant) (catalog.Item, error) {
	ctx = context.WithoutCancel(ctx)
	it, err := s.items.AddVariant(ctx, itemID, v, s.now())
	if err != nil {
		return catalog.Item{}, err
	}
	s.rewarm(ctx, itemID)
	return it, nil
}

// DeleteVariant removes a variant from a sale that has not opened, and warms
// the sale again, as AddVariant does. A variant that any order holds stays,
// even if the opening was moved later since: one still queued in Redis
// would otherwise be refused by MySQL after the shopper was told it was
// taken. It returns catalog.ErrNotFound, catalog.ErrVariantNotFound,
// catalog.ErrSaleOpened and catalog.ErrVariantCount (a sale keeps one).
func (s *Service) DeleteVariant(ctx context.Context, itemID, variantID int64) (catalog.Item, error) {
	ctx = context.WithoutCancel(ctx)
	var it catalog.Item
	err := s.sync.Exclusive(ctx, itemID, func(ctx context.Context) error {
		if err := s.unheld(ctx, itemID, variantID); err != nil {
			return err
		}
		var err error
		it, err = s.items.DeleteVariant(ctx, itemID, variantID, s.now())
		return err
	})
	if err != nil {
		return catalog.Item{}, err
	}
	s.rewarm(ctx, itemID)
	return it, nil
}

// unheld refuses (catalog.ErrSaleOpened) if Redis holds less of the variant
// than its stock_total: some reservation, persisted or not, holds a unit.
// The caller holds the sale's sync lock and the sale has not opened, so no
// purchase or release changes that meanwhile.
func (s *Service) unheld(ctx context.Context, itemID, variantID int64) error {
	cur, err := s.items.Get(ctx, itemID)
	if err != nil {
		return err
	}
	v, ok := cur.Variant(variantID)
	if !ok {
		return catalog.ErrVariantNotFound
	}
	levels, err := s.stock.Levels(ctx, []int64{itemID})
	if err != nil {
		return err
	}
	if n, warm := levels[itemID].Variants[variantID]; warm && n < int64(v.StockTotal) {
		return catalog.ErrSaleOpened
	}
	return nil
}

func (s *Service) rewarm(ctx context.Context, itemID int64) {
	if err := s.sync.Warm(ctx, itemID); err != nil {
		s.log.WarnContext(ctx, "variants changed but the sale was not warmed again; warm it before it opens",
			"item_id", itemID, "err", err)
	}
}
