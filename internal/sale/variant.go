package sale

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/seckill/seckill/internal/audit"
	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/stock"
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
	var was, now catalog.Variant
	err := s.sync.Exclusive(ctx, itemID, func(ctx context.Context) error {
		var adj adjustment
		var err error
		it, err = s.items.UpdateVariant(ctx, itemID, variantID, p, func(_ catalog.Item, cur, next catalog.Variant) error {
			was, now = cur, next
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
	s.record(ctx, audit.ActionVariantUpdate, itemID, variantFields(was), variantFields(now))
	return it, nil
}

// AddVariant adds a variant to a sale that has not opened, and warms the
// sale again, under the sale's sync lock, so Redis sells it. A failed warm
// is logged, not returned: MySQL has the variant, Redis simply does not
// offer it yet (a purchase of it is answered variant_not_found), and the
// reconciliation or the admin's warm brings Redis in step. It returns
// catalog.ErrNotFound, catalog.ErrSaleOpened, catalog.ErrVariantCount and
// catalog.ErrLabelTaken.
func (s *Service) AddVariant(ctx context.Context, itemID int64, v catalog.Variant) (catalog.Item, error) {
	ctx = context.WithoutCancel(ctx)
	var it catalog.Item
	err := s.sync.Exclusive(ctx, itemID, func(ctx context.Context) error {
		var err error
		if it, err = s.items.AddVariant(ctx, itemID, v, s.now()); err != nil {
			return err
		}
		s.rewarm(ctx, itemID)
		return nil
	})
	if err != nil {
		return catalog.Item{}, fmt.Errorf("add variant to item %d: %w", itemID, err)
	}
	s.record(ctx, audit.ActionVariantAdd, itemID, nil, variantFields(added(it, v.Label)))
	return it, nil
}

// DeleteVariant removes a variant from a sale that has not opened. Redis
// takes the variant off sale first, in one step that is refused if any
// reservation, persisted or still queued, holds a unit of it: such an order
// must never meet a variant MySQL no longer has, even if the opening was
// moved later since it was made. Then MySQL deletes it, and the sale is
// warmed again; all under the sale's sync lock. It returns
// catalog.ErrNotFound, catalog.ErrVariantNotFound, catalog.ErrSaleOpened
// and catalog.ErrVariantCount (a sale keeps one).
func (s *Service) DeleteVariant(ctx context.Context, itemID, variantID int64) (catalog.Item, error) {
	ctx = context.WithoutCancel(ctx)
	var it catalog.Item
	var gone catalog.Variant
	err := s.sync.Exclusive(ctx, itemID, func(ctx context.Context) error {
		var adj adjustment
		var err error
		gone, adj, err = s.takeOffSale(ctx, itemID, variantID)
		if err != nil {
			return err
		}
		if it, err = s.items.DeleteVariant(ctx, itemID, variantID, s.now()); err != nil {
			s.undo(adj)
			return err
		}
		s.rewarm(ctx, itemID)
		return nil
	})
	if err != nil {
		return catalog.Item{}, fmt.Errorf("delete variant %d of item %d: %w", variantID, itemID, err)
	}
	s.record(ctx, audit.ActionVariantDelete, itemID, variantFields(gone), nil)
	return it, nil
}

// takeOffSale takes all of a variant's stock out of Redis, refused
// (catalog.ErrSaleOpened) if Redis holds less than its stock_total: a
// reservation holds a unit. A sale Redis does not hold needs nothing. It
// returns the variant as it was.
func (s *Service) takeOffSale(ctx context.Context, itemID, variantID int64) (catalog.Variant, adjustment, error) {
	cur, err := s.items.Get(ctx, itemID)
	if err != nil {
		return catalog.Variant{}, adjustment{}, err
	}
	v, ok := cur.Variant(variantID)
	if !ok {
		return catalog.Variant{}, adjustment{}, catalog.ErrVariantNotFound
	}
	var adj adjustment
	err = s.adjust(ctx, &adj, itemID, variantID, -int64(v.StockTotal))
	if errors.Is(err, stock.ErrStockConflict) {
		return catalog.Variant{}, adjustment{}, catalog.ErrSaleOpened
	}
	return v, adj, err
}

// added finds the variant just added to it by its label, which no other
// variant of the sale shares.
func added(it catalog.Item, label string) catalog.Variant {
	for _, v := range it.Variants {
		if strings.EqualFold(v.Label, label) {
			return v
		}
	}
	return catalog.Variant{Label: label}
}

// rewarm warms a sale whose variants changed; the caller holds its sync
// lock. A failure leaves Redis safe (a removed variant has no stock there,
// an added one is not offered yet) and is logged for a person.
func (s *Service) rewarm(ctx context.Context, itemID int64) {
	if err := s.sync.WarmHeld(ctx, itemID); err != nil {
		s.log.WarnContext(ctx, "variants changed but the sale was not warmed again; warm it before it opens",
			"item_id", itemID, "err", err)
	}
}
