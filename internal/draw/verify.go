package draw

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Check is what Verify found of a published draw.
type Check struct {
	Drawn   bool
	Entries int
	Winners int
	// Ranking is each variant's ranking as recomputed, best first.
	Ranking map[int64][]Ticket
}

// Verify recomputes a published draw from its seed, entries and units and
// compares it with what it publishes: the seed against the commitment made
// at the opening of entries, the winners against the rankings. Before the
// draw it checks only that the commitment and salt are there.
func Verify(p Proof) (Check, error) {
	if p.SeedSHA256 == nil || p.Salt == nil {
		return Check{}, errors.New("the draw publishes no commitment yet (entries have not opened)")
	}
	if _, err := decodeHex("salt", *p.Salt, 16); err != nil {
		return Check{}, err
	}
	if p.Phase != PhaseDrawn {
		if p.Seed != nil || p.Entries != nil || p.Winners != nil {
			return Check{}, fmt.Errorf("a draw in phase %q publishes a seed, entries or winners", p.Phase)
		}
		return Check{Entries: p.EntryCount}, nil
	}
	if p.Seed == nil || p.Entries == nil || p.Winners == nil {
		return Check{}, errors.New("a drawn draw must publish its seed, entries and winners")
	}
	seed, err := decodeHex("seed", *p.Seed, 32)
	if err != nil {
		return Check{}, err
	}
	commit, err := decodeHex("seed_sha256", *p.SeedSHA256, 32)
	if err != nil {
		return Check{}, err
	}
	if sum := sha256.Sum256(seed); !bytes.Equal(sum[:], commit) {
		return Check{}, fmt.Errorf("SHA-256 of the seed is %x, not the commitment %s: the seed was changed", sum, *p.SeedSHA256)
	}
	u := units(p.Variants)
	entries := *p.Entries
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		if _, err := decodeHex("entry_id", e.EntryID, 32); err != nil {
			return Check{}, err
		}
		if _, ok := u[e.VariantID]; !ok {
			return Check{}, fmt.Errorf("entry %s is for variant %d, which the draw does not list", e.EntryID, e.VariantID)
		}
		if seen[e.EntryID] {
			return Check{}, fmt.Errorf("entry %s is listed twice", e.EntryID)
		}
		seen[e.EntryID] = true
	}
	ranking := Rank(seed, entries, u)
	want := Winners(ranking, u)
	got := slices.Clone(*p.Winners)
	slices.SortFunc(want, cmpTicket)
	slices.SortFunc(got, cmpTicket)
	if !slices.Equal(want, got) {
		return Check{}, fmt.Errorf("the published winners (%d) are not the first units of the rankings recomputed from the seed (%d)",
			len(got), len(want))
	}
	if p.Backfilled != nil {
		if err := checkBackfill(ranking, u, *p.Backfilled); err != nil {
			return Check{}, err
		}
	}
	return Check{Drawn: true, Entries: len(entries), Winners: len(want), Ranking: ranking}, nil
}

// checkBackfill checks that units passed on went down each ranking in
// order, after its winners, each entry once.
func checkBackfill(ranking map[int64][]Ticket, units map[int64]int, backfilled []Ticket) error {
	next := make(map[int64]int, len(units))
	for v, n := range units {
		next[v] = min(n, len(ranking[v]))
	}
	for _, b := range backfilled {
		r, i := ranking[b.VariantID], next[b.VariantID]
		if i >= len(r) || r[i].EntryID != b.EntryID {
			return fmt.Errorf("entry %s was passed a unit of variant %d out of its ranking's order", b.EntryID, b.VariantID)
		}
		next[b.VariantID]++
	}
	return nil
}

func cmpTicket(a, b Ticket) int {
	return cmp.Or(strings.Compare(a.EntryID, b.EntryID), cmp.Compare(a.VariantID, b.VariantID))
}

func decodeHex(name, s string, n int) ([]byte, error) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != n {
		return nil, fmt.Errorf("%s must be %d bytes in hex, got %q", name, n, s)
	}
	return b, nil
}
