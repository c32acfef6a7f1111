package runner

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// Over as many rounds as sides, each side runs once in every position, and
// the persistence rounds start in the order plain, drain, drain with events.
func TestTurnedPutsEachSideInEveryPosition(t *testing.T) {
	t.Parallel()
	var got []string
	for round := range 3 {
		var order strings.Builder
		side := func(name string) func() error { return func() error { order.WriteString(name); return nil } }
		if err := turned(round, side("p"), side("d"), side("e")); err != nil {
			t.Fatal(err)
		}
		got = append(got, order.String())
	}
	if want := []string{"pde", "dep", "epd"}; !slices.Equal(got, want) {
		t.Errorf("orders over three rounds = %v, want %v", got, want)
	}
}

func TestTurnedStopsAtTheFirstError(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	ran := 0
	err := turned(1, func() error { ran++; return nil }, func() error { ran++; return boom }, func() error { ran++; return nil })
	if !errors.Is(err, boom) || ran != 1 {
		t.Errorf("turned = %v after %d sides, want boom after 1", err, ran)
	}
}
