package saleview

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/catalog"
)

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
