package catalog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"
)

// UpdateVariant writes the patched fields of a variant of sale itemID. A
// stock_total change moves the variant's available stock and the sale's by
// the same delta, refusing to take it below zero (ErrStockConflict). locked
// runs under the sale's row lock, after every statement, as Update's does,
// with the variant as it is and as it will be. It returns the sale as written, and ErrNotFound,
// ErrVariantNotFound or ErrLabelTaken.
func (s *Store) UpdateVariant(ctx context.Context, itemID, variantID int64, p VariantPatch,
	locked func(it Item, cur, next Variant) error) (Item, error) {
	var it Item
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		i, err := lockVariant(tx, itemID, variantID, &it)
		if err != nil {
			return err
		}
		cur := it.Variants[i]
		next := p.Apply(cur)
		delta := next.StockTotal - cur.StockTotal
		next.Stock = cur.Stock + delta
		if next.Stock < 0 {
			return ErrStockConflict
		}
		if delta < 0 && it.DrawnAt != nil {
			return ErrDrawnUnits
		}
		err = tx.Model(&Variant{}).Where("id = ?", variantID).Updates(map[string]any{
			"label": next.Label, "price_cents": next.PriceCents, "per_user_limit": next.PerUserLimit,
			"image_url": next.ImageURL, "stock_total": next.StockTotal, "stock": gorm.Expr("stock + ?", delta),
		}).Error
		if err != nil {
			return translate(err)
		}
		if err := moveItemStock(tx, itemID, delta); err != nil {
			return err
		}
		it.Variants[i] = next
		it.StockTotal, it.Stock = it.StockTotal+delta, it.Stock+delta
		if locked == nil {
			return nil
		}
		// Last, as in Update: a label another admin took a moment ago must
		// not fail the update after Redis sold the stock it added.
		return locked(it, cur, next)
	})
	if err != nil {
		return Item{}, fmt.Errorf("update variant %d of item %d: %w", variantID, itemID, err)
	}
	return it, nil
}

// AddVariant adds v, with all of its stock available, to a sale that has not
// opened at now. It returns the sale as written, and ErrNotFound,
// ErrSaleOpened, ErrVariantCount or ErrLabelTaken.
func (s *Store) AddVariant(ctx context.Context, itemID int64, v Variant, now time.Time) (Item, error) {
	var it Item
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		if it, err = lockItem(tx, itemID); err != nil {
			return err
		}
		if err := beforeOpening(it, now); err != nil {
			return err
		}
		if len(it.Variants) >= MaxVariants {
			return ErrVariantCount
		}
		v.ID, v.ItemID, v.Stock = 0, itemID, v.StockTotal
		v.Position = it.Variants[len(it.Variants)-1].Position + 1
		if err := translate(tx.Create(&v).Error); err != nil {
			return err
		}
		it.Variants = append(it.Variants, v)
		it.StockTotal, it.Stock = it.StockTotal+v.StockTotal, it.Stock+v.StockTotal
		return moveItemStock(tx, itemID, v.StockTotal)
	})
	if err != nil {
		return Item{}, fmt.Errorf("add variant to item %d: %w", itemID, err)
	}
	return it, nil
}

// DeleteVariant removes a variant from a sale that has not opened at now,
// and its stock with it; a sale keeps at least one. It returns the sale as
// written, and ErrNotFound, ErrVariantNotFound, ErrSaleOpened or
// ErrVariantCount.
func (s *Store) DeleteVariant(ctx context.Context, itemID, variantID int64, now time.Time) (Item, error) {
	var it Item
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		i, err := lockVariant(tx, itemID, variantID, &it)
		switch {
		case err != nil:
			return err
		case len(it.Variants) == 1:
			return ErrVariantCount
		}
		if err := beforeOpening(it, now); err != nil {
			return err
		}
		// A sale whose opening was moved later may hold orders already: the
		// foreign key refuses to delete a variant they refer to.
		if err := tx.Delete(&Variant{}, variantID).Error; err != nil {
			if errors.Is(err, gorm.ErrForeignKeyViolated) {
				return ErrSaleOpened
			}
			return err
		}
		gone := it.Variants[i]
		it.Variants = slices.Delete(it.Variants, i, i+1)
		it.StockTotal, it.Stock = it.StockTotal-gone.StockTotal, it.Stock-gone.StockTotal
		return moveItemStock(tx, itemID, -gone.StockTotal)
	})
	if err != nil {
		return Item{}, fmt.Errorf("delete variant %d of item %d: %w", variantID, itemID, err)
	}
	return it, nil
}

// lockVariant locks sale itemID into *it and finds its variant variantID,
// returning the variant's index in it.Variants. It returns lockItem's errors
// and ErrVariantNotFound.
func lockVariant(tx *gorm.DB, itemID, variantID int64, it *Item) (int, error) {
	var err error
	if *it, err = lockItem(tx, itemID); err != nil {
		return -1, err
	}
	i := slices.IndexFunc(it.Variants, func(v Variant) bool { return v.ID == variantID })
	if i < 0 {
		return -1, ErrVariantNotFound
	}
	return i, nil
}

// beforeOpening refuses a change of variants once the sale opened; a draw
// opens with its entries, which name a variant each.
func beforeOpening(it Item, now time.Time) error {
	opens := it.StartsAt
	if it.IsDraw() {
		opens = *it.EntriesOpenAt
	}
	if !now.Before(opens) {
		return ErrSaleOpened
	}
	return nil
}

// moveItemStock keeps the sale's sums in step with a change of delta to one
// of its variants' stock_total and stock.
func moveItemStock(tx *gorm.DB, itemID int64, delta int) error {
	if delta == 0 {
		return nil
	}
	return tx.Model(&Item{}).Where("id = ?", itemID).Updates(map[string]any{
		"stock_total": gorm.Expr("stock_total + ?", delta), "stock": gorm.Expr("stock + ?", delta),
	}).Error
}
