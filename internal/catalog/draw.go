package catalog

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// The draw's reads and writes of draw sales (package draw). The draw keeps
// its entries in tables of its own; what it changes of a sale, it changes
// here, so every write of items and variants stays in this package.

// WithTx is the store writing in tx: the draw changes its sale in the same
// transaction as its entries, under the sale's row lock (GetForUpdate,
// GetShared).
func (s *Store) WithTx(tx *gorm.DB) *Store { return &Store{db: tx} }

// DrawsDue returns the ids of the draw sales whose entries closed by now
// and that are not drawn yet. A draw whose sale ended before it ran is not
// due: nobody could buy.
func (s *Store) DrawsDue(ctx context.Context, now time.Time) ([]int64, error) {
	var ids []int64
	err := s.db.WithContext(ctx).Raw("SELECT id FROM items WHERE mode = ? AND drawn_at IS NULL AND entries_close_at <= ? "+
		"AND ends_at > ? AND retired_at IS NULL", ModeDraw, now, now).Scan(&ids).Error
	if err != nil {
		return nil, fmt.Errorf("find draws due: %w", err)
	}
	return ids, nil
}

// DrawsOn returns the ids of the drawn sales still on at now: those whose
// units may still pass down their rankings.
func (s *Store) DrawsOn(ctx context.Context, now time.Time) ([]int64, error) {
	var ids []int64
	err := s.db.WithContext(ctx).Raw("SELECT id FROM items WHERE mode = ? AND drawn_at IS NOT NULL AND ends_at > ? "+
		"AND retired_at IS NULL", ModeDraw, now).Scan(&ids).Error
	if err != nil {
		return nil, fmt.Errorf("find drawn sales: %w", err)
	}
	return ids, nil
}

// MarkDrawn records that sale it was drawn at at with seed: each variant
// keeps the units it was drawn with (DrawUnits, which the published draw
// shows) and the sale its seed, public only from now. Call it on a store
// over the draw's transaction (WithTx), after GetForUpdate.
func (s *Store) MarkDrawn(ctx context.Context, it Item, at time.Time, seed []byte) error {
	q := s.db.WithContext(ctx)
	for _, v := range it.Variants {
		if err := q.Exec("UPDATE variants SET draw_units = stock_total WHERE id = ?", v.ID).Error; err != nil {
			return fmt.Errorf("mark variant %d drawn: %w", v.ID, err)
		}
	}
	if err := q.Exec("UPDATE items SET drawn_at = ?, draw_seed = ? WHERE id = ?", at, seed, it.ID).Error; err != nil {
		return fmt.Errorf("mark item %d drawn: %w", it.ID, err)
	}
	return nil
}
