package httpapi

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/catalog"
)

// The list's page sizes: the default is the page everyone loads, the one
// the shared snapshot holds.
const (
	defaultPageLimit = 20
	maxPageLimit     = 100
)

// itemPage is one page of GET /items without its server_time, which each
// answer adds fresh.
type itemPage struct {
	Items      []itemJSON `json:"items"`
	NextCursor *string    `json:"next_cursor"` // null on the last page
}

// pageQuery reads ?limit= and ?cursor=. The cursor is nil for the first
// page, whose AsOf is the moment it is read.
func pageQuery(c *gin.Context) (cur *catalog.Cursor, limit int, err error) {
	limit = defaultPageLimit
	if s, ok := c.GetQuery("limit"); ok {
		if limit, err = strconv.Atoi(s); err != nil || limit < 1 || limit > maxPageLimit {
			return nil, 0, invalidLimit(maxPageLimit)
		}
	}
	if s, ok := c.GetQuery("cursor"); ok {
		cur, err := decodeCursor(s)
		if err != nil {
			return nil, 0, errInvalidCursor
		}
		return &cur, limit, nil
	}
	return nil, limit, nil
}

// encodeCursor writes c as an opaque string: the group, the split moment,
// and the last key shown, in microseconds. Nothing in it is secret or
// trusted: a forged cursor only chooses where a public list starts.
func encodeCursor(c catalog.Cursor) string {
	group := "o"
	if c.Ended {
		group = "e"
	}
	raw := fmt.Sprintf("%s.%d.%d.%d", group, c.AsOf.UnixMicro(), c.At.UnixMicro(), c.ID)
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

func decodeCursor(s string) (catalog.Cursor, error) {
	if len(s) > 128 {
		return catalog.Cursor{}, errInvalidCursor
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return catalog.Cursor{}, err
	}
	parts := strings.Split(string(raw), ".")
	if len(parts) != 4 || (parts[0] != "o" && parts[0] != "e") {
		return catalog.Cursor{}, errInvalidCursor
	}
	var n [3]int64
	for i, p := range parts[1:] {
		if n[i], err = strconv.ParseInt(p, 10, 64); err != nil {
			return catalog.Cursor{}, err
		}
	}
	if n[2] < 1 { // every cursor given out names the sale it follows
		return catalog.Cursor{}, errInvalidCursor
	}
	return catalog.Cursor{AsOf: time.UnixMicro(n[0]).UTC(), Ended: parts[0] == "e",
		At: time.UnixMicro(n[1]).UTC(), ID: n[2]}, nil
}

// presentPage shows a page of sales with the live stock of those sales
// only: Redis is asked about no sale the page does not show.
func (v saleView) presentPage(ctx context.Context, cur catalog.Cursor, limit int) (itemPage, error) {
	items, next, err := v.catalog.Page(ctx, cur, limit)
	if err != nil {
		return itemPage{}, err
	}
	levels, err := v.levels(ctx, items)
	if err != nil {
		return itemPage{}, err
	}
	now := v.now()
	out := itemPage{Items: make([]itemJSON, len(items))}
	for i, it := range items {
		out.Items[i] = present(it, levels, now)
	}
	if next != nil {
		s := encodeCursor(*next)
		out.NextCursor = &s
	}
	return out, nil
}
