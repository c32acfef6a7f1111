package drawvec

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
)

// ErrCommitment is returned by Rankings when the published seed does not
// hash to the commitment published before the close.
var ErrCommitment = errors.New("drawvec: seed does not match its commitment")

// Published is GET /api/v1/items/{id}/draw as anyone may read it, decoded
// here apart from the server's code so the tests that recompute a draw
// (the end-to-end suite and the fault tests) check the server, not
// themselves.
type Published struct {
	Phase      string  `json:"phase"`
	SeedSHA256 *string `json:"seed_sha256"`
	Salt       *string `json:"salt"`
	Seed       *string `json:"seed"`
	Variants   []struct {
		VariantID  int64 `json:"variant_id"`
		StockTotal int   `json:"stock_total"`
	} `json:"variants"`
	Entries []Ticket `json:"entries"`
	Winners []Ticket `json:"winners"`
}

// Ticket is one published entry or winner.
type Ticket struct {
	EntryID   string `json:"entry_id"`
	VariantID int64  `json:"variant_id"`
}

// SHA256Hex is hex(SHA-256(parts...)), the hash every rule of a draw uses.
func SHA256Hex(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Rankings recomputes each variant's ranking as the README tells a shopper
// to: entries by hex(SHA-256(seed || ":" || entry_id)), ascending. It
// checks the seed against the commitment first and returns ErrCommitment
// when they differ, or an error when either is missing or not hex.
func (d Published) Rankings() (map[int64][]string, error) {
	if d.Seed == nil || d.SeedSHA256 == nil {
		return nil, errors.New("drawvec: the draw publishes no seed or no commitment")
	}
	seed, err := hex.DecodeString(*d.Seed)
	if err != nil {
		return nil, fmt.Errorf("drawvec: seed %q is not hex: %w", *d.Seed, err)
	}
	if SHA256Hex(seed) != *d.SeedSHA256 {
		return nil, fmt.Errorf("seed %s, commitment %s: %w", *d.Seed, *d.SeedSHA256, ErrCommitment)
	}
	keys := make(map[string]string, len(d.Entries))
	out := map[int64][]string{}
	for _, e := range d.Entries {
		keys[e.EntryID] = SHA256Hex(seed, []byte(":"+e.EntryID))
		out[e.VariantID] = append(out[e.VariantID], e.EntryID)
	}
	for _, r := range out {
		sort.Slice(r, func(i, j int) bool { return keys[r[i]] < keys[r[j]] })
	}
	return out, nil
}

// Units is what the draw gave away of each variant.
func (d Published) Units() map[int64]int {
	m := map[int64]int{}
	for _, v := range d.Variants {
		m[v.VariantID] = v.StockTotal
	}
	return m
}
