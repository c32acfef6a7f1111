package drawvec_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/draw"
	"github.com/seckill/seckill/internal/draw/drawvec"
)

// vector is a vector as generated: its draw as JSON values.
type vector struct {
	about      string
	commitment string
	checkedAt  *time.Time
	shopper    *drawvec.Shopper
	expect     drawvec.Expect
	draw       any
	text       string // the document's bytes, instead of draw
}

var (
	commitment = hexOf(sum(string(seed)))
	// checkedAt is when a vector is checked unless it says otherwise: a
	// minute after the draw.
	checkedAt = drawnAt.Add(time.Minute)
)

// shopper is u checking with what the draw page kept: their secret, and
// the salt published and the size chosen when they entered.
func shopper(u string) *drawvec.Shopper {
	return &drawvec.Shopper{UserID: u, EntrySecret: hexOf(secretsOf(u)), Salt: hexOf(salt), VariantID: sizeOf[slices.Index(shoppers, u)]}
}

// keptNoSalt is u checking with their secret alone, as verify-draw -user
// -secret without -salt.
func keptNoSalt(u string) *drawvec.Shopper {
	s := shopper(u)
	s.Salt = ""
	return s
}

// standing is where user u stands in rankings, by the rules: the first
// stock_total won, the next as many as their size passed on backfilled.
func standing(rankings map[int64][]string, u string) *draw.Standing {
	for _, v := range sizes {
		i := slices.Index(rankings[v.VariantID], u)
		if i < 0 {
			continue
		}
		s := &draw.Standing{VariantID: v.VariantID, Place: i + 1, Outcome: draw.OutcomeWaitlist}
		if i < v.StockTotal {
			s.Outcome = draw.OutcomeWon
		} else if i < v.StockTotal+countOf(passedOn, v.VariantID) {
			s.Outcome = draw.OutcomeBackfilled
		}
		return s
	}
	panic(u + " did not enter")
}

func countOf(vs []int64, v int64) (n int) {
	for _, x := range vs {
		if x == v {
			n++
		}
	}
	return n
}

func pass(s *draw.Standing) drawvec.Expect {
	return drawvec.Expect{Verdict: draw.VerdictPass, Shopper: s}
}

func unconfirmed(s *draw.Standing) drawvec.Expect {
	return drawvec.Expect{Verdict: draw.VerdictUnconfirmed, Shopper: s}
}

func entryOnly(u string) *drawvec.Shopper { return &drawvec.Shopper{EntryID: entryID(u)} }

func fail(problem string) drawvec.Expect {
	return drawvec.Expect{Verdict: draw.VerdictFail, Problem: problem}
}

// tampered is the honest draw, changed by spoil, checked with the
// commitment kept and no shopper.
func tampered(about, problem string, spoil func(d doc)) vector {
	p, _ := drawn(seed, shoppers)
	d := asDoc(p)
	spoil(d)
	return vector{about: about, commitment: commitment, expect: fail(problem), draw: d}
}

// TestVectorsAreGenerated writes the vectors with -update, and otherwise
// fails if the files are not what this generator makes: they are never
// edited by hand.
func TestVectorsAreGenerated(t *testing.T) {
	want := map[string][]byte{}
	for name, v := range vectors() {
		if v.checkedAt == nil {
			v.checkedAt = &checkedAt
		}
		var d []byte
		if v.text == "" {
			var err error
			if d, err = json.Marshal(v.draw); err != nil {
				t.Fatal(err)
			}
		}
		b, err := json.MarshalIndent(drawvec.Vector{About: v.about, Commitment: v.commitment, CheckedAt: v.checkedAt, Shopper: v.shopper,
			Expect: v.expect, Draw: d, DrawText: v.text}, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		want[name+".json"] = append(b, '\n')
	}
	have, _ := filepath.Glob(filepath.Join(drawvec.Dir(), "*.json"))
	for _, f := range have {
		if _, ok := want[filepath.Base(f)]; ok {
			continue
		}
		if *update {
			_ = os.Remove(f)
		} else {
			t.Errorf("%s is not a vector gen_test.go makes: run go test ./internal/draw/drawvec -update", f)
		}
	}
	for name, b := range want {
		f := filepath.Join(drawvec.Dir(), name)
		if *update {
			if err := os.WriteFile(f, b, 0o644); err != nil {
				t.Fatal(err)
			}
		} else if got, err := os.ReadFile(f); err != nil || !bytes.Equal(got, b) {
			t.Errorf("%s is not what gen_test.go makes (%v): run go test ./internal/draw/drawvec -update", f, err)
		}
	}
}

// TestVectorsRead: every file reads as a vector, with a verdict.
func TestVectorsRead(t *testing.T) {
	vs, err := drawvec.Read()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if !slices.Contains([]string{draw.VerdictPass, draw.VerdictUnconfirmed, draw.VerdictNotDrawn, draw.VerdictFail}, v.Expect.Verdict) || len(v.Doc()) == 0 ||
			strings.TrimSpace(v.About) == "" {
			t.Errorf("%s: verdict %q, about %q", v.Name, v.Expect.Verdict, v.About)
		}
	}
}

// noSize is u checking on a device that kept no size (a record kept
// before sizes were).
func noSize(u string) *drawvec.Shopper {
	s := shopper(u)
	s.VariantID = 0
	return s
}

func notDrawn() drawvec.Expect { return drawvec.Expect{Verdict: draw.VerdictNotDrawn} }

// withheld is the draw as published while entries are open, in phase.
func withheld(phase string) doc {
	return spoiled(open(), func(d doc) { d["phase"] = phase })
}
