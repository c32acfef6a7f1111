// Package drawkey derives a draw's seed from a key the servers hold, the
// sale's id and a random nonce of the sale, so that what MySQL, Redis, a replica or a
// backup hold during entries (the nonce and SHA-256 of the seed) does not
// tell anyone the seed: whoever could read it before the close could try
// user ids offline and enter the one that wins. The seed exists only in a
// server's memory, when the sale is created (to publish its commitment) and
// when it is drawn (written to MySQL then, public from that moment).
//
// The key comes from SECKILL_DRAW_KEY: one or more "ID:BASE64" keys, the
// first the current one. A sale records the id of the key it was made
// under, so keys rotate: add the new key first, drop the old one once the
// draws made under it are drawn.
package drawkey

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
)

// Sizes of what a sale stores and of a key.
const (
	NonceSize  = 32
	SeedSize   = sha256.Size
	MinKeySize = 32
	MaxKeySize = 64
	MaxIDLen   = 16
)

// label keeps this HMAC's outputs apart from any other use of the key. The
// sale's id joined the message before any release derived a seed without
// it, so the label stayed v1.
const label = "seckill draw seed v1"

// Key is one draw key and the id sales record it by.
type Key struct {
	ID     string
	secret []byte
}

// String shows the key's id only, so a key printed with its config (%v,
// %+v, a log line) never shows its bytes.
func (k Key) String() string { return k.ID + ":<secret>" }

// GoString is String for %#v.
func (k Key) GoString() string { return k.String() }

// Ring is the configured keys, the current one first; empty when
// SECKILL_DRAW_KEY is unset.
type Ring []Key

// Sealed is what a new draw sale stores: the nonce, the id of the key, and
// SHA-256 of the seed they give, published when entries open.
type Sealed struct {
	Nonce      []byte
	KeyID      string
	Commitment []byte
}

// ErrNoKey: no draw key is configured, so no draw sale can be made.
var ErrNoKey = errors.New("drawkey: no draw key is configured (SECKILL_DRAW_KEY)")

// Seal draws a fresh nonce for the new sale itemID under the current key and
// returns it with its commitment; the seed itself is not kept. It returns
// ErrNoKey when no key is configured.
func (r Ring) Seal(itemID int64) (Sealed, error) {
	if len(r) == 0 {
		return Sealed{}, fmt.Errorf("seal a draw: %w", ErrNoKey)
	}
	nonce := make([]byte, NonceSize)
	if _, err := rand.Read(nonce); err != nil {
		return Sealed{}, fmt.Errorf("seal a draw: %w", err)
	}
	sum := sha256.Sum256(derive(r[0].secret, itemID, nonce))
	return Sealed{Nonce: nonce, KeyID: r[0].ID, Commitment: sum[:]}, nil
}

// Errors of drawing: Seed refuses to give a seed other than the committed one.
var (
	// ErrUnknownKey: the sale was made under a key this server does not
	// hold.
	ErrUnknownKey = errors.New("drawkey: the sale's draw key is not configured")
	// ErrCommitment: the seed derived does not hash to the sale's
	// commitment (a key of that id but other bytes, or a changed nonce).
	ErrCommitment = errors.New("drawkey: the derived seed does not match the sale's commitment")
)

// Seed derives the seed of sale itemID, made under key keyID with nonce, and
// checks it against the sale's commitment. The sale's id is part of what is
// derived, so a nonce copied from another sale gives another seed, which
// fails the commitment copied with it. It returns ErrUnknownKey for a
// key id not in the ring and ErrCommitment for a seed that does not match:
// the draw must then not run, rather than run with another seed.
func (r Ring) Seed(itemID int64, keyID string, nonce, commitment []byte) ([]byte, error) {
	for _, k := range r {
		if k.ID != keyID {
			continue
		}
		seed := derive(k.secret, itemID, nonce)
		sum := sha256.Sum256(seed)
		if subtle.ConstantTimeCompare(sum[:], commitment) != 1 {
			return nil, fmt.Errorf("derive the seed under key %q: %w", keyID, ErrCommitment)
		}
		return seed, nil
	}
	return nil, fmt.Errorf("derive the seed under key %q: %w", keyID, ErrUnknownKey)
}

// IDs lists the keys' ids, current first, for the start-up log.
func (r Ring) IDs() []string {
	ids := make([]string, len(r))
	for i, k := range r {
		ids[i] = k.ID
	}
	return ids
}

// derive is the seed: HMAC-SHA256(key, label || item id as 8 bytes
// big-endian || nonce). The id binds the seed to its sale: without it, an
// insider who can write MySQL could copy a drawn sale's nonce, key id and
// commitment into a sale not yet open and so know its seed, public since
// the first sale's draw.
func derive(key []byte, itemID int64, nonce []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(label))
	m.Write(binary.BigEndian.AppendUint64(nil, uint64(itemID)))
	m.Write(nonce)
	return m.Sum(nil)
}
