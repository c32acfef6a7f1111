package front

import (
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestMarks(t *testing.T) {
	t.Parallel()
	const item = 7
	tests := []struct {
		name  string
		steps func(m *Marks, c *clock)
		want  bool
	}{
		{"nothing seen", func(*Marks, *clock) {}, false},
		{"zero left marks", func(m *Marks, _ *clock) { m.Saw(item, 0, 0) }, true},
		{"stock left does not", func(m *Marks, _ *clock) { m.Saw(item, 3, 0) }, false},
		{"another sale is not marked", func(m *Marks, _ *clock) { m.Saw(item+1, 0, 0) }, false},
		{"a return clears the mark", func(m *Marks, _ *clock) { m.Saw(item, 0, 0); m.Returned(item, 1) }, false},
		{"an answer older than a return heard first does not mark", func(m *Marks, _ *clock) {
			m.Returned(item, 1) // the cancel's announcement overtook the answer
			m.Saw(item, 0, 0)
		}, false},
		{"an answer that saw the return marks again", func(m *Marks, _ *clock) {
			m.Saw(item, 0, 0)
			m.Returned(item, 1)
			m.Saw(item, 0, 1) // the returned unit sold again
		}, true},
		{"an old announcement arriving late does not clear a newer mark", func(m *Marks, _ *clock) {
			m.Saw(item, 0, 2)
			m.Returned(item, 1)
		}, true},
		{"the mark lapses after its TTL", func(m *Marks, c *clock) { m.Saw(item, 0, 0); c.t = c.t.Add(time.Second) }, false},
		{"the mark holds within its TTL", func(m *Marks, c *clock) { m.Saw(item, 0, 0); c.t = c.t.Add(999 * time.Millisecond) }, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := &clock{t: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
			m := NewMarks(time.Second, c.now)
			tc.steps(m, c)
			if got := m.SoldOut(item); got != tc.want {
				t.Fatalf("SoldOut = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestOffNeverMarks(t *testing.T) {
	t.Parallel()
	m := NewMarks(0, time.Now)
	m.Saw(1, 0, 0)
	var none *Marks
	none.Saw(1, 0, 0)
	if m.SoldOut(1) || none.SoldOut(1) {
		t.Fatal("marks that are off marked a sale")
	}
}

// TestVariantMarksOfferWhatIsLeft: the reviewer's case. Sizes A, B, C; A
// sells out, then B: a marked A must no longer offer B.
func TestVariantMarksOfferWhatIsLeft(t *testing.T) {
	t.Parallel()
	const item, a, b, c = 7, 1, 2, 3
	m := NewMarks(time.Hour, (&clock{t: time.Unix(0, 0)}).now)
	m.SawVariant(item, a, 0, 1, []int64{b, c})
	if got, ok := m.VariantSoldOut(item, a); !ok || len(got) != 2 {
		t.Fatalf("A marked: %v %v, want [B C]", got, ok)
	}
	m.SawVariant(item, b, 0, 1, []int64{c})
	if got, _ := m.VariantSoldOut(item, a); len(got) != 1 || got[0] != c {
		t.Fatalf("A after B sold out offers %v, want [C]", got)
	}
	m.Emptied(item, c) // a purchase took C's last unit
	if got, _ := m.VariantSoldOut(item, b); len(got) != 0 {
		t.Fatalf("B after C emptied offers %v, want nothing", got)
	}
	if _, ok := m.VariantSoldOut(item, c); ok {
		t.Fatal("an emptied size is not marked: the next try asks Redis")
	}
	m.Returned(item, 2)
	if _, ok := m.VariantSoldOut(item, a); ok {
		t.Fatal("a return clears the sizes' marks")
	}
}
