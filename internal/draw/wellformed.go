package draw

import (
	"encoding/hex"
	"fmt"
	"strings"
)

// wellFormed checks a published draw's shape before anything is computed
// from it, so that a forged document fails with a reason rather than
// passing a check it slipped past or crashing the checker; it returns the
// variants' units. web/static/drawcheck.js applies the same rules in the
// same order.
func wellFormed(p Proof) (map[int64]int, error) {
	switch p.Phase {
	case PhaseUpcoming:
		return nil, fmt.Errorf("%w (entries open at %s)", ErrNothingPublished, p.EntriesOpenAt.Format("2006-01-02 15:04:05Z07:00"))
	case PhaseEntriesOpen, PhaseDrawing, PhaseEnded, PhaseDrawn:
	default:
		return nil, malformed("phase %q is none of upcoming, entries_open, drawing, drawn, ended", p.Phase)
	}
	if err := hexField("seed_sha256", p.SeedSHA256, 32); err != nil {
		return nil, err
	}
	if err := hexField("salt", p.Salt, 16); err != nil {
		return nil, err
	}
	u, err := variantUnits(p.Variants)
	if err != nil {
		return nil, err
	}
	if p.Phase != PhaseDrawn {
		if p.Seed != nil || p.Entries != nil || p.Winners != nil || p.Backfilled != nil {
			return nil, malformed("a draw in phase %q publishes a seed, entries, winners or backfilled", p.Phase)
		}
		return u, nil
	}
	return u, drawnWellFormed(p, u)
}

// drawnWellFormed checks what a drawn draw adds: the seed and three lists
// of entries, each entry once per list and under a listed variant.
func drawnWellFormed(p Proof, u map[int64]int) error {
	if err := hexField("seed", p.Seed, 32); err != nil {
		return err
	}
	lists := []struct {
		name string
		l    *[]Ticket
	}{{"entries", p.Entries}, {"winners", p.Winners}, {"backfilled", p.Backfilled}}
	for _, l := range lists {
		if l.l == nil {
			return malformed("a drawn draw must publish %s (a list, even empty)", l.name)
		}
		if err := tickets(l.name, *l.l, u); err != nil {
			return err
		}
	}
	if p.EntryCount != len(*p.Entries) {
		return malformed("entry_count is %d but %d entries are listed", p.EntryCount, len(*p.Entries))
	}
	return nil
}

// variantUnits reads the variants' units: each variant once, none negative.
func variantUnits(vs []UnitsOf) (map[int64]int, error) {
	u := make(map[int64]int, len(vs))
	for _, v := range vs {
		if _, dup := u[v.VariantID]; dup {
			return nil, malformed("variant %d is listed twice", v.VariantID)
		}
		if v.StockTotal < 0 {
			return nil, malformed("variant %d has a negative stock_total (%d)", v.VariantID, v.StockTotal)
		}
		u[v.VariantID] = v.StockTotal
	}
	return u, nil
}

// tickets checks a list of entries: ids as the rules make them, each once,
// each under a listed variant.
func tickets(list string, ts []Ticket, u map[int64]int) error {
	seen := make(map[string]bool, len(ts))
	for _, t := range ts {
		if !isHex(t.EntryID, 32) {
			return malformed("%s: entry id %q is not 64 lowercase hex digits", list, t.EntryID)
		}
		if _, ok := u[t.VariantID]; !ok {
			return malformed("%s: entry %s is under variant %d, which the draw does not list", list, t.EntryID, t.VariantID)
		}
		if seen[t.EntryID] {
			return malformed("%s: entry %s is listed twice", list, t.EntryID)
		}
		seen[t.EntryID] = true
	}
	return nil
}

func hexField(name string, s *string, n int) error {
	if s == nil {
		return malformed("%s is missing", name)
	}
	if !isHex(*s, n) {
		return malformed("%s must be %d bytes in lowercase hex, got %q", name, n, *s)
	}
	return nil
}

// isHex says whether s is n bytes in lowercase hex, the only spelling the
// server publishes: a second spelling of one id could list an entry twice
// unnoticed.
func isHex(s string, n int) bool {
	if len(s) != 2*n || strings.ToLower(s) != s {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// mustHex decodes a value wellFormed checked.
func mustHex(s string) []byte {
	b, _ := hex.DecodeString(s)
	return b
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)
}
