package audit

import (
	"context"
	"fmt"
)

// Filter narrows a page of the log; zero values match everything.
type Filter struct {
	ItemID int64
	Action string
}

// Page is a slice of the log, newest first. Next is the cursor of the page
// after it, 0 when this is the last.
type Page struct {
	Entries []Entry
	Next    int64
}

// List returns up to limit entries that match f, newest first, starting
// below cursor (an entry id; 0 starts at the newest). Paging by id, not
// offset, keeps every entry on exactly one page while new ones are added.
// It returns ErrInvalid for a limit below 1 or a negative cursor, and
// MySQL's errors.
func (s *Store) List(ctx context.Context, f Filter, limit int, cursor int64) (Page, error) {
	if limit < 1 || cursor < 0 {
		return Page{}, ErrInvalid
	}
	q := s.db.WithContext(ctx).Order("id DESC").Limit(limit + 1)
	if cursor > 0 {
		q = q.Where("id < ?", cursor)
	}
	if f.ItemID != 0 {
		q = q.Where("item_id = ?", f.ItemID)
	}
	if f.Action != "" {
		q = q.Where("action = ?", f.Action)
	}
	p := Page{Entries: []Entry{}}
	if err := q.Find(&p.Entries).Error; err != nil {
		return Page{}, fmt.Errorf("list audit log: %w", err)
	}
	if len(p.Entries) > limit {
		p.Entries = p.Entries[:limit]
		p.Next = p.Entries[limit-1].ID
	}
	return p, nil
}
