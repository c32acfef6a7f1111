package draw

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/drawkey"
)

// UseKeys gives the draw the keys sales' seeds derive from (SECKILL_DRAW_KEY).
// A sale made under a key the ring lacks is not drawn.
func (s *Service) UseKeys(r drawkey.Ring) { s.drawKeys = r }

// UseLegacySales names the draws made before draw keys
// (SECKILL_DRAW_LEGACY_SALES) that are drawn from the seed stored at their
// creation. The list comes from outside MySQL: whoever can write MySQL
// could give any sale that shape, with a seed of their choice.
func (s *Service) UseLegacySales(ids []int64) {
	s.legacy = make(map[int64]bool, len(ids))
	for _, id := range ids {
		s.legacy[id] = true
	}
}

// errNoSeed: the sale's seed cannot be had here (its key is not
// configured, or what it gives does not match the commitment); the sale is
// not drawn.
var errNoSeed = errors.New("draw: no seed matching the sale's commitment")

// errLegacySeed: a draw made before draw keys whose stored seed does not
// hash to its commitment.
var errLegacySeed = errors.New("draw: the stored seed does not match the commitment")

// errNotLegacy: a sale without a nonce that SECKILL_DRAW_LEGACY_SALES does
// not list; its stored seed may be an insider's choice.
var errNotLegacy = errors.New("draw: a sale without a nonce is drawn from its stored seed only if SECKILL_DRAW_LEGACY_SALES lists it")

// seedOf is the seed sale it is drawn with: derived from its nonce under
// the key it was made with, and checked against the commitment it
// published. A draw made before draw keys (no nonce) was given its seed at
// creation and is drawn from it, if SECKILL_DRAW_LEGACY_SALES lists it.
// Whatever fails, the sale is not drawn: drawing it with any other seed
// would break the commitment.
func (s *Service) seedOf(it catalog.Item) ([]byte, error) {
	if it.DrawNonce == nil && !s.legacy[it.ID] {
		return nil, fmt.Errorf("seed of sale %d: %w: %w", it.ID, errNoSeed, errNotLegacy)
	}
	if it.DrawNonce == nil {
		sum := sha256.Sum256(it.DrawSeed)
		if it.DrawSeed == nil || !bytes.Equal(sum[:], it.DrawCommitment) {
			return nil, fmt.Errorf("seed of sale %d: %w: %w", it.ID, errNoSeed, errLegacySeed)
		}
		return it.DrawSeed, nil
	}
	var keyID string
	if it.DrawKeyID != nil {
		keyID = *it.DrawKeyID
	}
	seed, err := s.drawKeys.Seed(it.ID, keyID, it.DrawNonce, it.DrawCommitment)
	if err != nil {
		return nil, fmt.Errorf("seed of sale %d: %w: %w", it.ID, errNoSeed, err)
	}
	return seed, nil
}
