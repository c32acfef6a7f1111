package catalog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Store reads and writes items in MySQL.
type Store struct{ db *gorm.DB }

// NewStore returns a store over db.
func NewStore(db *gorm.DB) *Store { return &Store{db: db} }

// TableName maps Item onto the items table; its fields need no tags.
func (Item) TableName() string { return "items" }

// Create inserts it with all of its stock available and returns it with its
// id and timestamps.
func (s *Store) Create(ctx context.Context, it Item) (Item, error) {
	it.Stock = it.StockTotal
	if err := s.db.WithContext(ctx).Create(&it).Error; err != nil {
		return Item{}, fmt.Errorf("create item: %w", err)
	}
	return s.Get(ctx, it.ID)
}

// Get returns the item, or ErrNotFound.
func (s *Store) Get(ctx context.Context, id int64) (Item, error) {
	var it Item
	err := s.db.WithContext(ctx).Take(&it, id).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return Item{}, fmt.Errorf("get item %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Item{}, fmt.Errorf("get item %d: %w", id, err)
	}
	return it, nil
}

// List returns every item, soonest sale first.
func (s *Store) List(ctx context.Context) ([]Item, error) {
	return s.find(ctx, s.db.WithContext(ctx))
}

// ListOpen returns the items whose sale has not ended at now: the ones that
// must be warm in Redis.
func (s *Store) ListOpen(ctx context.Context, now time.Time) ([]Item, error) {
	return s.ListRecent(ctx, now)
}

// ListRecent returns the items whose sale ends after endedAfter: the open
// ones and those that ended since.
func (s *Store) ListRecent(ctx context.Context, endedAfter time.Time) ([]Item, error) {
	return s.find(ctx, s.db.WithContext(ctx).Where("ends_at > ?", endedAfter))
}

func (s *Store) find(ctx context.Context, q *gorm.DB) ([]Item, error) {
	var items []Item
	if err := q.Order("starts_at, id").Find(&items).Error; err != nil {
		return nil, fmt.Errorf("list items: %w", err)
	}
	return items, nil
}

// Update writes the patched fields. A stock_total change moves the available
// stock by the same delta, refusing to take it below zero (ErrStockConflict).
// locked, if not nil, runs while the row is locked, with the row as it is and
// as it will be; an error from it rolls the update back. Callers use it to
// change Redis in step: nothing else can change the item meanwhile. It
// returns the item as written, without reading it back, so a failure after
// the commit can never be mistaken for a failed update.
func (s *Store) Update(ctx context.Context, id int64, p Patch, locked func(cur, next Item) error) (Item, error) {
	var next Item
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var cur Item
		if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).Take(&cur, id).Error; err != nil {
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return ErrNotFound
			}
			return err
		}
		next = p.Apply(cur)
		delta := next.StockTotal - cur.StockTotal
		next.Stock = cur.Stock + delta
		if next.Stock < 0 {
			return ErrStockConflict // the row is locked, so this check is exact
		}
		if locked != nil {
			if err := locked(cur, next); err != nil {
				return err
			}
		}
		return tx.Model(&Item{}).Where("id = ?", id).Updates(map[string]any{
			"name": next.Name, "description": next.Description, "price_cents": next.PriceCents,
			"per_user_limit": next.PerUserLimit, "room_rate": next.RoomRate, "starts_at": next.StartsAt, "ends_at": next.EndsAt,
			"stock_total": next.StockTotal, "stock": gorm.Expr("stock + ?", delta),
		}).Error
	})
	if err != nil {
		return Item{}, fmt.Errorf("update item %d: %w", id, err)
	}
	return next, nil
}

// GetShared reads the item with a shared row lock, inside a transaction: it
// waits for an update in progress to commit, and holds back persistence
// batches of the item until the transaction ends.
func (s *Store) GetShared(ctx context.Context, id int64) (Item, error) {
	var it Item
	res := s.db.WithContext(ctx).Raw("SELECT * FROM items WHERE id = ? LOCK IN SHARE MODE", id).Scan(&it)
	if res.Error != nil {
		return Item{}, fmt.Errorf("get item %d: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		return Item{}, fmt.Errorf("get item %d: %w", id, ErrNotFound)
	}
	return it, nil
}
