package catalog

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Cursor says where a page of the shop's list of sales begins. The list
// shows the open sales (live, then upcoming: ends_at after AsOf) by
// starts_at and id, then the ended ones (ends_at at or before AsOf), the
// most recently ended first.
//
// AsOf is the moment the first page was read, kept by every later page: the
// split between the two groups stays where it was, so a sale that ends
// while a shopper pages through stays in the open group, with its status
// ended, rather than being shown twice or passed over.
type Cursor struct {
	AsOf  time.Time
	Ended bool      // the page continues in the ended group
	At    time.Time // the last sale shown's starts_at (open group) or ends_at (ended group)
	ID    int64     // the last sale shown's id; 0: the group's beginning
}

// FirstPage is where the list begins at now.
// AsOf is kept to the microsecond, so it survives being written into a
// cursor and read back.
func FirstPage(now time.Time) Cursor { return Cursor{AsOf: now.UTC().Truncate(time.Microsecond)} }

// Page returns up to limit sales from c on, with their variants, and the
// cursor of the page after them, nil on the last page. However many sales
// have ended, it reads about limit rows of them: every query walks an index
// from the cursor's key and stops at limit (the live part also walks the
// open sales' ends_at, see openFrom).
func (s *Store) Page(ctx context.Context, c Cursor, limit int) ([]Item, *Cursor, error) {
	q := s.db.WithContext(ctx)
	var items []Item
	if !c.Ended {
		open, err := openFrom(q, c, limit+1)
		if err != nil {
			return nil, nil, err
		}
		items = open
		if len(items) > limit {
			last := items[limit-1]
			return s.filled(ctx, items[:limit], &Cursor{AsOf: c.AsOf, At: last.StartsAt, ID: last.ID})
		}
		c = Cursor{AsOf: c.AsOf, Ended: true}
	}
	opened := len(items)
	ended, err := endedFrom(q, c, limit+1-opened)
	if err != nil {
		return nil, nil, err
	}
	items = append(items, ended...)
	if len(items) <= limit {
		return s.filled(ctx, items, nil)
	}
	last := items[limit-1]
	next := &Cursor{AsOf: c.AsOf, Ended: true, At: last.EndsAt, ID: last.ID}
	if limit <= opened { // the page ends on the open group's last sale
		next = &Cursor{AsOf: c.AsOf, At: last.StartsAt, ID: last.ID}
	}
	return s.filled(ctx, items[:limit], next)
}

func (s *Store) filled(ctx context.Context, items []Item, next *Cursor) ([]Item, *Cursor, error) {
	if err := withVariants(s.db.WithContext(ctx), items); err != nil {
		return nil, nil, err
	}
	return items, next, nil
}

// openFrom reads up to n open sales after c, in two parts whose union is
// the open group in order (every live sale starts at or before AsOf, every
// upcoming one after): live sales found through ends_at, so the ones that
// ended long ago are never walked, then upcoming ones through starts_at.
func openFrom(q *gorm.DB, c Cursor, n int) ([]Item, error) {
	var live, upcoming []Item
	if c.ID == 0 || !c.At.After(c.AsOf) {
		// A live sale may have started long before the ended ones around
		// it, so no index has the live ones in order: this walks the open
		// sales (the shop's schedule, not its history) by ends_at and sorts
		// the live ones. The hint keeps the planner off idx_items_starts_at,
		// whose order would walk every ended sale before the first live one.
		err := afterOpen(q.Table("items USE INDEX (idx_items_ends_at)"), c).
			Where("ends_at > ? AND starts_at <= ?", c.AsOf, c.AsOf).
			Order("starts_at, id").Limit(n).Find(&live).Error
		if err != nil {
			return nil, fmt.Errorf("list live items: %w", err)
		}
	}
	if len(live) == n {
		return live, nil
	}
	err := afterOpen(q.Table("items USE INDEX (idx_items_starts_at)"), c).Where("starts_at > ?", c.AsOf).
		Order("starts_at, id").Limit(n - len(live)).Find(&upcoming).Error
	if err != nil {
		return nil, fmt.Errorf("list upcoming items: %w", err)
	}
	return append(live, upcoming...), nil
}

func afterOpen(q *gorm.DB, c Cursor) *gorm.DB {
	if c.ID == 0 {
		return q
	}
	return q.Where("(starts_at > ? OR (starts_at = ? AND id > ?))", c.At, c.At, c.ID)
}

// endedFrom reads up to n ended sales after c, the most recently ended
// first, walking idx_items_ends_at backwards.
func endedFrom(q *gorm.DB, c Cursor, n int) ([]Item, error) {
	q = q.Table("items USE INDEX (idx_items_ends_at)").Where("ends_at <= ?", c.AsOf)
	if c.ID != 0 {
		q = q.Where("(ends_at < ? OR (ends_at = ? AND id < ?))", c.At, c.At, c.ID)
	}
	var items []Item
	if err := q.Order("ends_at DESC, id DESC").Limit(n).Find(&items).Error; err != nil {
		return nil, fmt.Errorf("list ended items: %w", err)
	}
	return items, nil
}
