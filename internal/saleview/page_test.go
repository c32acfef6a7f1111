package saleview

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/stock"
	"github.com/seckill/seckill/internal/testenv"
)

// reads notes the Redis keys and the MySQL rows of items a request read,
// as the real clients saw them.
type reads struct {
	mu   sync.Mutex
	keys []string
	rows int64
}

func (r *reads) DialHook(next redis.DialHook) redis.DialHook { return next }

func (r *reads) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		r.note(cmd)
		return next(ctx, cmd)
	}
}

func (r *reads) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			r.note(c)
		}
		return next(ctx, cmds)
	}
}

// note records the key of every command but a new connection's set-up.
func (r *reads) note(cmd redis.Cmder) {
	if slices.Contains([]string{"hello", "client", "auth", "select", "ping"}, cmd.Name()) {
		return
	}
	if args := cmd.Args(); len(args) > 1 {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.keys = append(r.keys, fmt.Sprint(args[1]))
	}
}

func (r *reads) take() ([]string, int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	keys, rows := r.keys, r.rows
	r.keys, r.rows = nil, 0
	return keys, rows
}

// TestListPageReadsOnlyItsSales: with 600 sales in MySQL, each page of the
// shop's list (the shared first page and the ones after, at two sizes) reads
// from Redis the stock keys of the sales it shows and no others, and from
// MySQL's items table about as many rows as it shows.
func TestListPageReadsOnlyItsSales(t *testing.T) {
	t.Parallel()
	db := testenv.MySQL(t)
	rdb, prefix := testenv.Redis(t)
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	var items []catalog.Item
	for i := range 600 {
		at := now.Add(time.Duration(i-500) * time.Minute) // 500 ended, 100 open
		items = append(items, catalog.Item{Name: "s", StockTotal: 1, Stock: 1, PerUserLimit: 1,
			StartsAt: at.Add(-time.Hour), EndsAt: at})
	}
	if err := db.Gorm.CreateInBatches(&items, 300).Error; err != nil {
		t.Fatal(err)
	}
	seen := &reads{}
	rdb.AddHook(seen)
	err := db.Gorm.Callback().Query().After("gorm:query").Register("count_item_rows", func(tx *gorm.DB) {
		if tx.Statement.Table == "items" || tx.Statement.Schema != nil && tx.Statement.Schema.Table == "items" {
			seen.mu.Lock()
			seen.rows += tx.RowsAffected
			seen.mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	keys := keyspace.New(prefix)
	snaps := NewSnapshots(New(catalog.NewStore(db.Gorm), stock.NewStore(rdb, keys), func() time.Time { return now }))
	ctx := context.Background()

	for _, limit := range []int{DefaultPageLimit, 7} {
		var cur *catalog.Cursor
		for page := 0; page < 4; page++ {
			seen.take()
			var snap Snapshot
			var err error
			if cur == nil && limit == DefaultPageLimit {
				snap, err = snaps.FirstPage(ctx)
			} else {
				snap, err = snaps.Page(ctx, cur, limit)
			}
			var body Page
			if err == nil {
				err = json.Unmarshal(snap.Body, &body)
			}
			if err != nil || body.NextCursor == nil {
				t.Fatalf("page %d at limit %d: %v %s", page, limit, err, snap.Body)
			}
			var want []string
			for _, it := range body.Items {
				k := keys.Item(it.ID)
				want = append(want, k.Stock(), k.VariantStock())
			}
			got, rows := seen.take()
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("page %d at limit %d showed %d sales and read %d Redis keys:\n%v\nwant\n%v",
					page, limit, len(body.Items), len(got), got, want)
			}
			if max := int64(2*len(body.Items) + 2); rows > max {
				t.Fatalf("page %d at limit %d showed %d sales and read %d rows of items, want at most %d",
					page, limit, len(body.Items), rows, max)
			}
			next, err := DecodeCursor(*body.NextCursor)
			if err != nil {
				t.Fatal(err)
			}
			cur = &next
		}
	}
}

// TestCursorRoundTrip: a cursor given out reads back as itself, and what
// the list never gave out is ErrInvalidCursor.
func TestCursorRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 24, 10, 0, 0, 123000, time.UTC)
	for _, c := range []catalog.Cursor{
		{AsOf: at, At: at.Add(-time.Hour), ID: 1},
		{AsOf: at, Ended: true, At: at.Add(time.Minute), ID: 42},
	} {
		got, err := DecodeCursor(EncodeCursor(c))
		if err != nil || got != c {
			t.Errorf("DecodeCursor(EncodeCursor(%+v)) = %+v, %v", c, got, err)
		}
	}
	for _, s := range []string{"", "!", "bzEuMi4z", "eC4xLjIuMw", "by4xLjIuMA", "by4xLnguMw", strings.Repeat("A", 129)} {
		if _, err := DecodeCursor(s); !errors.Is(err, ErrInvalidCursor) {
			t.Errorf("DecodeCursor(%q) = %v, want ErrInvalidCursor", s, err)
		}
	}
}
