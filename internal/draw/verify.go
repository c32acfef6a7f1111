package draw

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// What is wrong with a published draw: Verify's errors wrap one of these.
// Each carries the code the test vectors and the page use (see Problem).
var (
	ErrMalformed          error = &problem{"malformed", "draw: the published draw is malformed"}
	ErrNothingPublished   error = &problem{"nothing_published", "draw: nothing is published before entries open"}
	ErrCommitmentMismatch error = &problem{"commitment_mismatch", "draw: the commitment is not the one seen before the close"}
	ErrSeedMismatch       error = &problem{"seed_mismatch", "draw: the seed is not the one committed to"}
	ErrWinners            error = &problem{"winners_wrong", "draw: the winners are not the heads of the rankings"}
	ErrBackfill           error = &problem{"backfill_wrong", "draw: the units passed on did not go down the rankings"}
	ErrEntryMissing       error = &problem{"entry_missing", "draw: the shopper's entry is not among the entries"}
	ErrSaltMismatch       error = &problem{"salt_mismatch", "draw: the salt is not the one seen when the shopper entered"}
	ErrVariantMismatch    error = &problem{"variant_mismatch", "draw: the shopper's entry is under another variant than the one entered for"}
)

// problem is one of the errors above: its message, and its code.
type problem struct{ code, msg string }

func (p *problem) Error() string { return p.msg }

// Problem is the code of what Verify found wrong, "" for none.
func Problem(err error) string {
	var p *problem
	if errors.As(err, &p) {
		return p.code
	}
	return ""
}

// Against is what a check holds a published draw to beyond the document
// itself: a document can be forged whole, seed and matching commitment
// alike, so only values the shopper kept from before the close bind it.
type Against struct {
	// Commitment is the seed_sha256 seen before the close (hex); "" when
	// none was kept, and then the seed is checked only against the
	// document's own commitment.
	Commitment string
	// Salt is the salt (hex) seen when the shopper entered; "" when none
	// was kept. A forger who knows every secret (the server's database)
	// can re-salt a drawn draw, recomputing every entry id, until the
	// rankings suit them: only a salt kept from before binds the ids.
	Salt string
	// The checking shopper: the entry id kept at entry (which binds the
	// salt by itself), or their user id and entry secret, from which the
	// id is computed under Salt, or the published salt when none was kept.
	EntryID, UserID, Secret string
	// Now is when the check runs: a draw not published once entries
	// closed is withheld from a shopper whose entry it should show. Zero:
	// by the published phase alone.
	Now time.Time
	// VariantID is the variant the shopper entered for; 0 for none kept.
	// An entry moved to a size with fewer entrants ahead can lose.
	VariantID int64
}

// entryID is the checking shopper's entry id under the published salt
// (the kept one, once Verify checked they are the same); "" for none.
func (a Against) entryID(salt string) (string, error) {
	if a.Secret == "" {
		return strings.ToLower(a.EntryID), nil
	}
	secret, err := ParseSecret(a.Secret)
	if err != nil {
		return "", err
	}
	return EntryID(mustHex(salt), secret, a.UserID), nil
}

// Check is what Verify found of a published draw.
type Check struct {
	Drawn                    bool
	Entries, Winners, Passed int
	CommitmentChecked        bool // against one kept from before the close
	// SaltUnchecked: the shopper's entry id was computed from the
	// published salt, kept nowhere, so a re-salted draw would pass.
	SaltUnchecked bool
	// Withheld: a shopper's entry was asked for, entries have closed, and
	// no draw is published, so the entry cannot be checked yet.
	Withheld bool
	Ranking  map[int64][]Ticket
	Mine     *Standing // the checked shopper's entry, once drawn
	units    map[int64]int
	passedOn map[int64]int
}

// Outcomes of an entry in a drawn draw.
const (
	OutcomeWon        = "won"        // in the first stock_total of its ranking
	OutcomeBackfilled = "backfilled" // offered a unit a winner left
	OutcomeWaitlist   = "waitlist"   // not reached (yet)
)

// Standing is where an entry stands in a drawn draw.
type Standing struct {
	EntryID   string `json:"-"`
	VariantID int64  `json:"variant_id"`
	Place     int    `json:"place"` // 1-based, in its variant's ranking
	Of        int    `json:"-"`
	Units     int    `json:"-"`
	Outcome   string `json:"outcome"`
}

// Verdicts of a check: a draw that holds, one that holds but whose seed
// (or salt) could not be checked against one seen before the close, one
// not published after the close although a shopper's entry was asked for,
// and one that does not hold.
const (
	VerdictPass        = "pass"
	VerdictUnconfirmed = "unconfirmed"
	VerdictNotDrawn    = "not_drawn"
	VerdictFail        = "fail"
)

// Verdict is err's verdict on c.
func (c Check) Verdict(err error) string {
	switch {
	case err != nil:
		return VerdictFail
	case c.Withheld:
		return VerdictNotDrawn
	case !c.CommitmentChecked || c.SaltUnchecked:
		return VerdictUnconfirmed
	}
	return VerdictPass
}

// VerifyJSON verifies a published draw as read from the wire: a document
// that DecodeProof refuses is malformed.
func VerifyJSON(doc []byte, against Against) (Check, error) {
	p, err := DecodeProof(doc)
	if err != nil {
		return Check{}, err
	}
	return Verify(p, against)
}

// Verify checks a published draw: its shape, its commitment against the one
// kept from before the close, and once drawn, its seed against its
// commitment, its winners against the rankings recomputed from the seed,
// the units passed on since against the next places of those rankings,
// and the checked shopper's entry among the entries. The error wraps one
// of the Err* problems above.
func Verify(p Proof, against Against) (Check, error) {
	u, err := wellFormed(p)
	if err != nil {
		return Check{}, err
	}
	c := Check{Entries: p.EntryCount, CommitmentChecked: against.Commitment != "", units: u,
		SaltUnchecked: against.Secret != "" && against.Salt == ""}
	if kept := strings.ToLower(against.Commitment); kept != "" && kept != *p.SeedSHA256 {
		return Check{}, fmt.Errorf("%w: the draw now publishes the commitment %s, but %s was published before the close: the seed was changed",
			ErrCommitmentMismatch, *p.SeedSHA256, kept)
	}
	if kept := strings.ToLower(against.Salt); kept != "" && kept != *p.Salt {
		return Check{}, fmt.Errorf("%w: the draw now publishes the salt %s, but %s was published when you entered: every entry id was changed",
			ErrSaltMismatch, *p.Salt, kept)
	}
	mine, err := against.entryID(*p.Salt)
	if err != nil {
		return Check{}, err
	}
	if p.Phase != PhaseDrawn {
		closed := p.Phase == PhaseDrawing || p.Phase == PhaseEnded || (!against.Now.IsZero() && !against.Now.Before(p.EntriesCloseAt))
		c.Withheld = mine != "" && closed
		return c, nil
	}
	if err := c.recompute(p); err != nil {
		return Check{}, err
	}
	if mine != "" {
		c.Mine = c.standing(mine)
		if c.Mine == nil {
			return Check{}, fmt.Errorf("%w: entry %s is not among the %d published entries", ErrEntryMissing, mine, len(*p.Entries))
		}
		if v := against.VariantID; v != 0 && c.Mine.VariantID != v {
			return Check{}, fmt.Errorf("%w: entry %s is listed under variant %d, but was entered for variant %d",
				ErrVariantMismatch, mine, c.Mine.VariantID, v)
		}
	}
	return c, nil
}

// recompute ranks the entries by the seed, and checks the winners and the
// units passed on against the rankings.
func (c *Check) recompute(p Proof) error {
	seed := mustHex(*p.Seed)
	if sum := sha256.Sum256(seed); !bytes.Equal(sum[:], mustHex(*p.SeedSHA256)) {
		return fmt.Errorf("%w: SHA-256 of the seed is %x, not the commitment %s", ErrSeedMismatch, sum, *p.SeedSHA256)
	}
	entered := make(map[string]int64, len(*p.Entries))
	for _, e := range *p.Entries {
		entered[e.EntryID] = e.VariantID
	}
	for _, w := range *p.Winners {
		if v, ok := entered[w.EntryID]; !ok || v != w.VariantID {
			return fmt.Errorf("%w: winner %s of variant %d is not among that variant's entries", ErrWinners, w.EntryID, w.VariantID)
		}
	}
	c.Ranking = Rank(seed, *p.Entries, c.units)
	want, got := Winners(c.Ranking, c.units), slices.Clone(*p.Winners)
	slices.SortFunc(want, cmpTicket)
	slices.SortFunc(got, cmpTicket)
	if !slices.Equal(want, got) {
		return fmt.Errorf("%w: the published winners (%d) are not the first units of the rankings recomputed from the seed (%d)",
			ErrWinners, len(got), len(want))
	}
	passed, err := checkBackfill(c.Ranking, c.units, entered, *p.Backfilled)
	c.Drawn, c.Entries, c.Winners, c.Passed, c.passedOn = true, len(*p.Entries), len(want), len(*p.Backfilled), passed
	return err
}

// checkBackfill checks that units passed on went down each ranking in
// order, after its winners; it returns how many each variant passed on.
func checkBackfill(ranking map[int64][]Ticket, units map[int64]int, entered map[string]int64, backfilled []Ticket) (map[int64]int, error) {
	next := make(map[int64]int, len(units))
	for v, n := range units {
		next[v] = min(n, len(ranking[v]))
	}
	for _, b := range backfilled {
		if v, ok := entered[b.EntryID]; !ok || v != b.VariantID {
			return nil, fmt.Errorf("%w: entry %s was passed a unit of variant %d but is not among its entries", ErrBackfill, b.EntryID, b.VariantID)
		}
		r, i := ranking[b.VariantID], next[b.VariantID]
		if i >= len(r) || r[i].EntryID != b.EntryID {
			return nil, fmt.Errorf("%w: entry %s was passed a unit of variant %d out of its ranking's order", ErrBackfill, b.EntryID, b.VariantID)
		}
		next[b.VariantID]++
	}
	passed := make(map[int64]int, len(next))
	for v, i := range next {
		passed[v] = i - min(units[v], len(ranking[v]))
	}
	return passed, nil
}

// standing finds an entry in the rankings; nil if it is in none.
func (c *Check) standing(entryID string) *Standing {
	for v, r := range c.Ranking {
		for i, t := range r {
			if t.EntryID != entryID {
				continue
			}
			s := &Standing{EntryID: entryID, VariantID: v, Place: i + 1, Of: len(r), Units: c.units[v], Outcome: OutcomeWaitlist}
			if i < c.units[v] {
				s.Outcome = OutcomeWon
			} else if i < c.units[v]+c.passedOn[v] {
				s.Outcome = OutcomeBackfilled
			}
			return s
		}
	}
	return nil
}

func cmpTicket(a, b Ticket) int {
	return cmp.Or(strings.Compare(a.EntryID, b.EntryID), cmp.Compare(a.VariantID, b.VariantID))
}
