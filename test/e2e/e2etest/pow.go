package e2etest

import (
	"strconv"
	"testing"

	"github.com/seckill/seckill/internal/httpapi"
	"github.com/seckill/seckill/internal/pow"
)

// TestPowBits is the base difficulty the tests' servers ask: real proofs,
// a few dozen hashes each.
const TestPowBits = 4

// Challenge asks s for a challenge for tok's shopper and sale id.
func (s *Server) Challenge(tb testing.TB, id int64, tok string, hdr ...string) (string, int) {
	tb.Helper()
	r := s.Call(tb, "POST", "/api/v1/items/"+Itoa(id)+"/challenge", tok, nil, hdr...)
	d, ok := r.Body["difficulty"].(float64)
	if r.Status != 200 || r.Str("challenge") == "" || !ok {
		tb.Fatalf("challenge: %d %s", r.Status, r.Raw)
	}
	return r.Str("challenge"), int(d)
}

// Proof is a solved challenge of s for tok's shopper and sale id, as
// X-Proof-Of-Work carries it.
func (s *Server) Proof(tb testing.TB, id int64, tok string) string {
	tb.Helper()
	ch, d := s.Challenge(tb, id, tok)
	return ch + ":" + pow.Solve(ch, d)
}

// Join joins sale id's waiting room as the page does: a challenge, solved,
// then the join carrying the proof.
func (s *Server) Join(tb testing.TB, id int64, tok string) Reply {
	tb.Helper()
	return s.Call(tb, "POST", "/api/v1/items/"+Itoa(id)+"/room", tok, nil, httpapi.ProofOfWorkHeader, s.Proof(tb, id, tok))
}

// Refusal checks that r is 403 proof_of_work_required and returns the fresh
// challenge and difficulty in its error.
func Refusal(t *testing.T, r Reply) (string, int) {
	t.Helper()
	Check(t, r, Want{403, "proof_of_work_required", ""})
	e := r.Body["error"].(map[string]any)
	ch, _ := e["challenge"].(string)
	d, ok := e["difficulty"].(float64)
	if ch == "" || !ok {
		t.Fatalf("a refusal without a fresh challenge: %s", r.Raw)
	}
	return ch, int(d)
}

// Unsolved is an x that does not solve challenge at d bits.
func Unsolved(challenge string, d int) string {
	for x := 0; ; x++ {
		if pow.LeadingZeros(challenge, strconv.Itoa(x)) < d {
			return strconv.Itoa(x)
		}
	}
}
