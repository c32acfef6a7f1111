package metrics

import (
	"errors"
	"testing"

	"github.com/seckill/seckill/internal/pow"
)

// Every refusal of a proof has a result label of its own: one added to pow
// without a name here would be counted as nothing.
func TestPowResultsNameEveryRefusal(t *testing.T) {
	for _, refusal := range pow.Refusals {
		named := false
		for _, r := range powResults {
			named = named || (r.err != nil && errors.Is(refusal, r.err))
		}
		if !named {
			t.Errorf("%v has no seckill_pow_proofs_total result", refusal)
		}
	}
}
