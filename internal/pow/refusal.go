package pow

import "errors"

// Refusals are the errors Issuer.Check and Ledger.Spend refuse a proof
// with. Any other error of theirs is the ledger out of reach: a 503, not a
// refusal, and not counted as one.
var Refusals = []error{ErrMissing, ErrMalformed, ErrForged, ErrExpired, ErrNotYours, ErrOtherNetwork, ErrTooWeak, ErrSpent}

// Refused reports whether err is (or wraps) one of Refusals.
func Refused(err error) bool {
	for _, r := range Refusals {
		if errors.Is(err, r) {
			return true
		}
	}
	return false
}
