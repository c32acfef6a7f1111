// Package draw runs the draw sales: shoppers enter during a window, and at
// its close the server ranks the entries by a seed it committed to before
// the first entry; each variant's first units go to the top of its ranking,
// and a unit nobody buys in time passes down the same ranking (backfill).
// The rules in this file are all a shopper needs to check a published draw,
// and the README states them word for word.
package draw

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrInvalidEntrySecret: an entry secret is not 64 lowercase hex digits.
var ErrInvalidEntrySecret = errors.New("draw: an entry secret must be 32 bytes in lowercase hex (64 digits)")

// ParseSecret reads an entry secret as the API and verify-draw take it: 32
// bytes in lowercase hex.
func ParseSecret(s string) ([]byte, error) {
	if !isHex(s, 32) {
		return nil, fmt.Errorf("parse entry secret of %d characters: %w", len(s), ErrInvalidEntrySecret)
	}
	return mustHex(s), nil
}

// EntryID is a shopper's entry id in a draw:
// hex(SHA-256(salt || secret || user id)). The salt is public from the
// opening of entries and the 32-byte secret is the shopper's: the shopper
// can recompute their own id; when their device chose the secret (the draw
// page does), the server could not pick the id to favour anyone; and nobody
// without the secret can tell from the published entries whether a given
// user id entered.
func EntryID(salt, secret []byte, userID string) string {
	h := sha256.New()
	h.Write(salt)
	h.Write(secret)
	h.Write([]byte(userID))
	return hex.EncodeToString(h.Sum(nil))
}

// RankKey is an entry's place in its variant's ranking, as a string that
// sorts ascending: hex(SHA-256(seed || ":" || entry id)).
func RankKey(seed []byte, entryID string) string {
	h := sha256.New()
	h.Write(seed)
	h.Write([]byte(":" + entryID))
	return hex.EncodeToString(h.Sum(nil))
}

// Commitment is hex(SHA-256(seed)), published before the first entry.
func Commitment(seed []byte) string {
	sum := sha256.Sum256(seed)
	return hex.EncodeToString(sum[:])
}

// Ticket is an entry as the published draw shows it.
type Ticket struct {
	EntryID   string `json:"entry_id"`
	VariantID int64  `json:"variant_id"`
}

// Rank orders each variant's entries by RankKey, ascending; ranking[v] is
// variant v's, best first. The first units[v] of each win; the rest, in
// order, are its waitlist. Entries of a variant not in units are left out.
func Rank(seed []byte, entries []Ticket, units map[int64]int) map[int64][]Ticket {
	keys := make(map[string]string, len(entries))
	ranking := map[int64][]Ticket{}
	for _, e := range entries {
		if _, ok := units[e.VariantID]; !ok {
			continue
		}
		keys[e.EntryID] = RankKey(seed, e.EntryID)
		ranking[e.VariantID] = append(ranking[e.VariantID], e)
	}
	for _, r := range ranking {
		slices.SortFunc(r, func(a, b Ticket) int { return strings.Compare(keys[a.EntryID], keys[b.EntryID]) })
	}
	return ranking
}

// Winners are the entries the draw gave a unit, variant by variant in
// ranking order, for variant ids in ascending order.
func Winners(ranking map[int64][]Ticket, units map[int64]int) []Ticket {
	ids := make([]int64, 0, len(ranking))
	for v := range ranking {
		ids = append(ids, v)
	}
	slices.Sort(ids)
	var out []Ticket
	for _, v := range ids {
		r := ranking[v]
		out = append(out, r[:min(units[v], len(r))]...)
	}
	return out
}
