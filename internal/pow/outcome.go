package pow

import "errors"

// Outcome is what one request adds to the counts a Policy reads besides
// its shopper's presence among the network's askers, which every request
// adds once a minute however many it sends. No request that cost no work
// adds more than that to anyone else's price: its count falls on its own
// shopper, so a few accounts flooding requests from behind an office's or
// a carrier's NAT cannot lock out the people who share their address.
type Outcome int

const (
	// Asked is a challenge handed out: asked for, or with the refusal of a
	// proof that was missing (how every client starts), expired (it was
	// signed here; a tab that slept) or sent from another network (a phone
	// that moved from Wi-Fi to its carrier while solving). It counts toward
	// its shopper's asks a minute and is no failure.
	Asked Outcome = iota
	// Unpaid is a refused proof that cost its sender no work: a failure of
	// its shopper only.
	Unpaid
	// Paid is a refused proof that cost its sender work: a failure of its
	// shopper, and its shopper among the network's failing ones, counted
	// once however often the proof, paid for once, is resent.
	Paid
)

// OutcomeOf is what a proof refused with err (an error of Check or
// Ledger.Spend) counts as.
//
// A proof costs work when its challenge was issued here (the HMAC holds)
// to this shopper, for this sale and network, and its hash meets the
// challenge's difficulty: about 2^d hashes. Of Check's and Spend's
// refusals only ErrSpent is such a proof: it passed every check and was
// spent before, so each shopper it names solved a challenge of their own.
// Malformed and forged (bad HMAC) proofs are free to make. A too weak one
// is a real challenge with any x: free. Someone else's proof, even solved,
// cost its owner the work and not its sender: one solution could be sent
// from any number of accounts, each counted as a failing shopper if it
// counted. Another sale's proof is not spent by the refusal, so one
// solution could be sent to every other sale for nothing. A proof spent
// again is free to resend too, but the network's failure term counts
// distinct shoppers, so resending it names no one new.
func OutcomeOf(err error) Outcome {
	switch {
	case errors.Is(err, ErrSpent):
		return Paid
	case errors.Is(err, ErrMissing), errors.Is(err, ErrExpired), errors.Is(err, ErrOtherNetwork):
		return Asked
	}
	return Unpaid
}
