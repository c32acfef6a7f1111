package draw_test

import (
	"testing"

	"github.com/seckill/seckill/internal/draw/drawvec"
)

// TestVerifyGivesEveryVectorItsVerdict runs every file of testdata/vectors
// through the Go verifier: honest draws pass (or, with no commitment kept,
// are unconfirmed), with the shopper's place and outcome; each tampered
// one fails for its own reason, without a panic.
func TestVerifyGivesEveryVectorItsVerdict(t *testing.T) {
	vs, err := drawvec.Read()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		t.Run(v.Name, func(t *testing.T) {
			if got := v.Check(); !v.Expect.Same(got) {
				t.Errorf("%s\nverifier: %s\nwant:     %s", v.About, got, v.Expect)
			}
		})
	}
}
