package draw

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// honest is a drawn draw built by the rules: ten entries over two variants
// of 2 and 1 units, and units passed since to the next of each ranking.
func honest(t *testing.T) Proof {
	t.Helper()
	seed, salt := []byte(strings.Repeat("s", 32)), []byte(strings.Repeat("t", 16))
	var entries []Ticket
	for i := range 10 {
		entries = append(entries, Ticket{EntryID: EntryID(salt, "shopper"+string(rune('a'+i))), VariantID: int64(1 + i%2)})
	}
	u := map[int64]int{1: 2, 2: 1}
	r := Rank(seed, entries, u)
	winners := Winners(r, u)
	backfilled := []Ticket{r[2][1], r[1][2], r[1][3]}
	commit, sh, sd := Commitment(seed), hex.EncodeToString(salt), hex.EncodeToString(seed)
	return Proof{Phase: PhaseDrawn, SeedSHA256: &commit, Salt: &sh, Seed: &sd, Entries: &entries, Winners: &winners,
		Backfilled: &backfilled, Variants: []UnitsOf{{VariantID: 1, StockTotal: 2}, {VariantID: 2, StockTotal: 1}}}
}

func TestVerifyRefusesWhatTheRulesDoNotGive(t *testing.T) {
	if _, err := Verify(honest(t)); err != nil {
		t.Fatalf("honest draw refused: %v", err)
	}
	if sum := sha256.Sum256([]byte(strings.Repeat("s", 32))); *honest(t).SeedSHA256 != hex.EncodeToString(sum[:]) {
		t.Fatal("the commitment is not SHA-256 of the seed")
	}
	cases := map[string]func(p *Proof){
		"drawn without a seed": func(p *Proof) { p.Seed = nil },
		"another seed": func(p *Proof) {
			s := hex.EncodeToString([]byte(strings.Repeat("x", 32)))
			p.Seed = &s
		},
		"an entry of no listed variant": func(p *Proof) { (*p.Entries)[0].VariantID = 9 },
		"an entry id that is no hash":   func(p *Proof) { (*p.Entries)[0].EntryID = "zz" },
		"an entry listed twice":         func(p *Proof) { *p.Entries = append(*p.Entries, (*p.Entries)[0]) },
		"a winner too many":             func(p *Proof) { *p.Winners = append(*p.Winners, (*p.Backfilled)[0]) },
		"a winner missing":              func(p *Proof) { *p.Winners = (*p.Winners)[1:] },
		"backfill out of order":         func(p *Proof) { (*p.Backfilled)[1], (*p.Backfilled)[2] = (*p.Backfilled)[2], (*p.Backfilled)[1] },
		"backfill skipping a place": func(p *Proof) {
			r := Rank(must(hex.DecodeString(*p.Seed)), *p.Entries, units(p.Variants))
			*p.Backfilled = []Ticket{r[1][4]}
		},
		"a seed before the draw": func(p *Proof) { p.Phase = PhaseDrawing },
	}
	for name, spoil := range cases {
		p := honest(t)
		spoil(&p)
		if _, err := Verify(p); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
