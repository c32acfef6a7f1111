package catalog

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrRetired: the sale is retired (see RetiredAt); it is never warmed or
// changed again.
var ErrRetired = errors.New("catalog: the sale is retired")

// Retire records that the sale was retired at at. Retiring a retired sale
// keeps its first time. It returns ErrNotFound for an unknown sale.
func (s *Store) Retire(ctx context.Context, id int64, at time.Time) error {
	res := s.db.WithContext(ctx).Model(&Item{}).Where("id = ? AND retired_at IS NULL", id).Update("retired_at", at)
	if res.Error != nil {
		return fmt.Errorf("retire item %d: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		if _, err := s.Get(ctx, id); err != nil {
			return fmt.Errorf("retire item %d: %w", id, err)
		}
	}
	return nil
}

// ListEnded returns up to limit sales that ended by now and are not
// retired, in id order after afterID: the ones a retirer looks at, a page
// at a time.
func (s *Store) ListEnded(ctx context.Context, now time.Time, afterID int64, limit int) ([]Item, error) {
	var items []Item
	err := s.db.WithContext(ctx).Where("retired_at IS NULL AND ends_at <= ? AND id > ?", now, afterID).
		Order("id").Limit(limit).Find(&items).Error
	if err != nil {
		return nil, fmt.Errorf("list ended items: %w", err)
	}
	return items, nil
}
