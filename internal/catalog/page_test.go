package catalog_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/testenv"
)

var asOf = time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)

// sales inserts n sales per state around asOf in one statement each, and
// returns them as stored. Keys repeat on purpose (sales come in pairs that
// share their starts_at and ends_at) so ties are broken by id.
func sales(tb testing.TB, db *gorm.DB, ended, live, upcoming int) []catalog.Item {
	tb.Helper()
	var items []catalog.Item
	add := func(n int, window func(i int) (time.Time, time.Time)) {
		for i := range n {
			s, e := window(i - i%2) // in pairs of equal keys
			items = append(items, catalog.Item{Name: fmt.Sprintf("s%d", len(items)), StockTotal: 1, Stock: 1,
				PerUserLimit: 1, StartsAt: s, EndsAt: e})
		}
	}
	add(ended, func(i int) (time.Time, time.Time) {
		e := asOf.Add(-time.Duration(i) * time.Minute) // i=0 ends exactly at asOf: ended
		return e.Add(-time.Hour), e
	})
	add(live, func(i int) (time.Time, time.Time) {
		// Some started a week ago and run on, long before most ended ones began.
		s := asOf.Add(-time.Duration(i)*time.Hour - time.Duration(i%3)*72*time.Hour)
		return s, asOf.Add(time.Duration(i+1) * time.Minute)
	})
	add(upcoming, func(i int) (time.Time, time.Time) {
		s := asOf.Add(time.Duration(i+1) * time.Minute)
		return s, s.Add(time.Hour)
	})
	// Shuffle the insert order so ids do not follow the keys.
	slices.Reverse(items[ended:])
	if err := db.CreateInBatches(&items, 500).Error; err != nil {
		tb.Fatalf("insert sales: %v", err)
	}
	return items
}

// wantOrder is the list's promised order, worked out in Go: open sales
// (ending after asOf) by starts_at and id, then the ended ones by ends_at
// and id, both descending.
func wantOrder(items []catalog.Item) []int64 {
	var open, ended []catalog.Item
	for _, it := range items {
		if it.EndsAt.After(asOf) {
			open = append(open, it)
		} else {
			ended = append(ended, it)
		}
	}
	slices.SortFunc(open, func(a, b catalog.Item) int {
		return cmpKey(a.StartsAt, a.ID, b.StartsAt, b.ID)
	})
	slices.SortFunc(ended, func(a, b catalog.Item) int {
		return cmpKey(b.EndsAt, b.ID, a.EndsAt, a.ID)
	})
	var ids []int64
	for _, it := range append(open, ended...) {
		ids = append(ids, it.ID)
	}
	return ids
}

func cmpKey(t1 time.Time, id1 int64, t2 time.Time, id2 int64) int {
	if c := t1.Compare(t2); c != 0 {
		return c
	}
	return int(id1 - id2)
}

// walk reads every page at limit and returns the ids in the order shown.
func walk(tb testing.TB, store *catalog.Store, limit int) []int64 {
	tb.Helper()
	var ids []int64
	c := catalog.FirstPage(asOf)
	for pages := 0; ; pages++ {
		if pages > 1000 {
			tb.Fatalf("limit %d: no last page after %d pages", limit, pages)
		}
		items, next, err := store.Page(context.Background(), c, limit)
		if err != nil {
			tb.Fatalf("page %d at limit %d: %v", pages, limit, err)
		}
		if len(items) > limit || (next != nil && len(items) != limit) {
			tb.Fatalf("page %d at limit %d: %d sales, next %v", pages, limit, len(items), next)
		}
		for _, it := range items {
			ids = append(ids, it.ID)
		}
		if next == nil {
			return ids
		}
		c = *next
	}
}

// TestPageWalksEverySaleOnceInOrder: 250 sales, ended, live and upcoming,
// with ties on their keys, paged at several limits, come back each exactly
// once in the promised order, and the same at every limit.
func TestPageWalksEverySaleOnceInOrder(t *testing.T) {
	t.Parallel()
	db := testenv.MySQL(t)
	store := catalog.NewStore(db.Gorm)
	want := wantOrder(sales(t, db.Gorm, 84, 83, 83))
	for _, limit := range []int{1, 7, 20, 83, 100, 250, 300} {
		if got := walk(t, store, limit); !slices.Equal(got, want) {
			t.Fatalf("limit %d: %d sales in order\n%v\nwant %d\n%v", limit, len(got), got, len(want), want)
		}
	}
}

// TestPageReadsAboutItsOwnRows: with 3,000 sales ended, a page reads about
// as many index entries and rows as it shows, wherever it is in the list.
// InnoDB's handler counters on the page's own connection count every
// entry read; a page that read every sale would read thousands.
func TestPageReadsAboutItsOwnRows(t *testing.T) {
	t.Parallel()
	db := testenv.MySQL(t)
	const limit, open = 20, 10
	sales(t, db.Gorm, 3000, open/2, open/2)
	err := db.Gorm.Connection(func(conn *gorm.DB) error {
		conn = conn.Session(&gorm.Session{}) // each query a statement of its own, on this one connection
		store, c := catalog.NewStore(conn), catalog.FirstPage(asOf)
		for page := 0; page < 5; page++ {
			before := handlerReads(t, conn)
			items, next, err := store.Page(context.Background(), c, limit)
			if err != nil {
				return err
			}
			// 2 sorted reads of the open sales, 2 index walks of limit+1,
			// a handful of seeks, and the variants' lookups of the page.
			read := handlerReads(t, conn) - before
			if bound := int64(2*open + 3*(limit+1) + 10); read > bound {
				t.Fatalf("page %d (%d sales) read %d index entries and rows, want at most %d", page, len(items), read, bound)
			}
			c = *next
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// handlerReads sums the connection's Handler_read_* counters: every row or
// index entry the server read for it.
func handlerReads(tb testing.TB, conn *gorm.DB) int64 {
	tb.Helper()
	var rows []struct {
		Name  string `gorm:"column:Variable_name"`
		Value int64  `gorm:"column:Value"`
	}
	if err := conn.Raw("SHOW SESSION STATUS LIKE 'Handler_read%'").Scan(&rows).Error; err != nil {
		tb.Fatalf("handler counters: %v", err)
	}
	var n int64
	for _, r := range rows {
		n += r.Value
	}
	return n
}
