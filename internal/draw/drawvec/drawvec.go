// Package drawvec reads the draw test vectors: published draws, honest and
// tampered, each with what a shopper kept from before the close and the
// verdict every checker must give. The Go verifier (internal/draw), seckill
// verify-draw and the page's check (web/static/drawcheck.js, in Chromium)
// each run every file, so none of them can drift from the others.
// gen_test.go writes the files: go test ./internal/draw/drawvec -update.
package drawvec

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/seckill/seckill/internal/draw"
)

// Vector is one file of internal/draw/testdata/vectors.
type Vector struct {
	Name  string `json:"-"` // the file's name
	About string `json:"about"`
	// Commitment is the seed_sha256 the shopper saw before the close; ""
	// when they kept none.
	Commitment string `json:"commitment,omitempty"`
	// CheckedAt is when the check runs; nil: by the published phase alone.
	CheckedAt *time.Time `json:"checked_at,omitempty"`
	Shopper   *Shopper   `json:"shopper,omitempty"`
	Expect    Expect     `json:"expect"`
	// Draw is the document GET /api/v1/items/{id}/draw served, as served;
	// or DrawText, its bytes, when they are no JSON this file could hold
	// as a value (trailing data) or must not be re-spelled.
	Draw     json.RawMessage `json:"draw,omitempty"`
	DrawText string          `json:"draw_text,omitempty"`
}

// Doc is the document as served: the bytes every checker reads.
func (v Vector) Doc() []byte {
	if v.DrawText != "" {
		return []byte(v.DrawText)
	}
	return v.Draw
}

// Shopper is the shopper checking their entry: their user id and the
// secret their device kept, or their entry id alone; and the salt and
// variant kept when they entered.
type Shopper struct {
	UserID      string `json:"user_id,omitempty"`
	EntrySecret string `json:"entry_secret,omitempty"`
	EntryID     string `json:"entry_id,omitempty"`
	Salt        string `json:"salt,omitempty"`
	VariantID   int64  `json:"variant_id,omitempty"` // the variant entered for; 0 for none kept
}

// Expect is a check's verdict (draw.Verdict*), what failed (draw.Problem)
// and where the shopper's entry stands once drawn.
type Expect struct {
	Verdict string         `json:"verdict"`
	Problem string         `json:"problem,omitempty"`
	Shopper *draw.Standing `json:"shopper,omitempty"`
}

func (e Expect) String() string {
	s := e.Verdict
	if e.Problem != "" {
		s += " (" + e.Problem + ")"
	}
	if e.Shopper != nil {
		s += fmt.Sprintf(", shopper %s at place %d of variant %d", e.Shopper.Outcome, e.Shopper.Place, e.Shopper.VariantID)
	}
	return s
}

// Dir is where the vectors are, wherever the test runs from.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", "vectors")
}

// Read reads every vector of Dir, in the order of their names.
func Read() ([]Vector, error) {
	names, err := filepath.Glob(filepath.Join(Dir(), "*.json"))
	if err != nil || len(names) == 0 {
		return nil, fmt.Errorf("read draw vectors in %s: none found (%v)", Dir(), err)
	}
	out := make([]Vector, 0, len(names))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		v := Vector{Name: filepath.Base(n)}
		if err := json.Unmarshal(b, &v); err != nil {
			return nil, fmt.Errorf("read draw vector %s: %w", v.Name, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// Check runs the Go verifier on v as seckill verify-draw does.
func (v Vector) Check() Expect {
	against := draw.Against{Commitment: v.Commitment}
	if v.CheckedAt != nil {
		against.Now = *v.CheckedAt
	}
	if s := v.Shopper; s != nil {
		against.Salt, against.EntryID, against.UserID, against.Secret = s.Salt, s.EntryID, s.UserID, s.EntrySecret
		against.VariantID = s.VariantID
	}
	c, err := draw.VerifyJSON(v.Doc(), against)
	got := Expect{Verdict: c.Verdict(err), Problem: draw.Problem(err)}
	if err == nil && c.Mine != nil {
		got.Shopper = c.Mine
	}
	return got
}

// Same says whether a checker's verdict is the expected one.
func (e Expect) Same(got Expect) bool {
	if e.Verdict != got.Verdict || e.Problem != got.Problem || (e.Shopper == nil) != (got.Shopper == nil) {
		return false
	}
	return e.Shopper == nil || (e.Shopper.VariantID == got.Shopper.VariantID && e.Shopper.Place == got.Shopper.Place &&
		strings.EqualFold(e.Shopper.Outcome, got.Shopper.Outcome))
}
