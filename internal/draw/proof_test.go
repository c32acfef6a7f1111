package draw

import (
	"slices"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/catalog"
)

// TestSplitOffered holds splitOffered to what the published draw's query
// gave when it joined variants: winners within the units drawn, by variant
// and place; backfilled past them, by offer time, then variant and place;
// an entry of a variant removed or never drawn in neither.
func TestSplitOffered(t *testing.T) {
	at := func(s int) *time.Time { v := time.Unix(int64(s), 0); return &v }
	it := catalog.Item{Variants: []catalog.Variant{{ID: 1, DrawUnits: ptr(1)}, {ID: 2, DrawUnits: ptr(2)}, {ID: 3}}}
	offered := []offeredRow{ // as read: by variant, then place
		{"a", 1, ptr(1), at(0)}, {"b", 1, ptr(2), at(20)}, {"c", 1, ptr(3), at(10)},
		{"d", 2, ptr(1), at(0)}, {"e", 2, ptr(2), at(0)}, {"f", 2, ptr(3), at(10)},
		{"g", 3, ptr(1), at(0)}, {"h", 9, ptr(1), at(0)},
	}
	winners, backfilled := splitOffered(it, offered)
	ids := func(ts []Ticket) []string {
		out := []string{}
		for _, t := range ts {
			out = append(out, t.EntryID)
		}
		return out
	}
	if got, want := ids(winners), []string{"a", "d", "e"}; !slices.Equal(got, want) {
		t.Errorf("winners %v, want %v", got, want)
	}
	if got, want := ids(backfilled), []string{"c", "f", "b"}; !slices.Equal(got, want) {
		t.Errorf("backfilled %v, want %v", got, want)
	}
	if w, b := splitOffered(it, nil); w == nil || b == nil {
		t.Error("no offers: want empty lists, which publish as [], not null")
	}
}
