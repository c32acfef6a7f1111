package saleview

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/seckill/seckill/internal/catalog"
)

// The list's page sizes: the default is the page everyone loads, the one
// the shared snapshot holds.
const (
	DefaultPageLimit = 20
	MaxPageLimit     = 100
)

// ErrInvalidCursor is a cursor this list did not give out.
var ErrInvalidCursor = errors.New("saleview: invalid cursor")

// Page is one page of the shop's list without its server_time, which
// each answer adds fresh.
type Page struct {
	Items      []Item  `json:"items"`
	NextCursor *string `json:"next_cursor"` // null on the last page
}

// EncodeCursor writes c as an opaque string: the group, the split moment,
// and the last key shown, in microseconds. Nothing in it is secret or
// trusted: a forged cursor only chooses where a public list starts.
func EncodeCursor(c catalog.Cursor) string {
	group := "o"
	if c.Ended {
		group = "e"
	}
	raw := fmt.Sprintf("%s.%d.%d.%d", group, c.AsOf.UnixMicro(), c.At.UnixMicro(), c.ID)
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// DecodeCursor reads a cursor EncodeCursor wrote, or fails with
// ErrInvalidCursor.
func DecodeCursor(s string) (catalog.Cursor, error) {
	if len(s) > 128 {
		return catalog.Cursor{}, ErrInvalidCursor
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return catalog.Cursor{}, fmt.Errorf("%w: %w", ErrInvalidCursor, err)
	}
	parts := strings.Split(string(raw), ".")
	if len(parts) != 4 || (parts[0] != "o" && parts[0] != "e") {
		return catalog.Cursor{}, ErrInvalidCursor
	}
	var n [3]int64
	for i, p := range parts[1:] {
		if n[i], err = strconv.ParseInt(p, 10, 64); err != nil {
			return catalog.Cursor{}, fmt.Errorf("%w: %w", ErrInvalidCursor, err)
		}
	}
	if n[2] < 1 { // every cursor given out names the sale it follows
		return catalog.Cursor{}, ErrInvalidCursor
	}
	return catalog.Cursor{AsOf: time.UnixMicro(n[0]).UTC(), Ended: parts[0] == "e",
		At: time.UnixMicro(n[1]).UTC(), ID: n[2]}, nil
}

// Page shows a page of sales with the live stock of those sales only:
// Redis is asked about no sale the page does not show. Its errors are the
// catalog's and the stock store's.
func (v View) Page(ctx context.Context, cur catalog.Cursor, limit int) (Page, error) {
	items, next, err := v.catalog.Page(ctx, cur, limit)
	if err != nil {
		return Page{}, err
	}
	levels, err := v.levels(ctx, items)
	if err != nil {
		return Page{}, err
	}
	now := v.now()
	out := Page{Items: make([]Item, len(items))}
	for i, it := range items {
		out.Items[i] = present(it, levels, now)
	}
	if next != nil {
		s := EncodeCursor(*next)
		out.NextCursor = &s
	}
	return out, nil
}
