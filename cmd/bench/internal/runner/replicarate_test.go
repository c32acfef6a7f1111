package runner

import (
	"testing"

	"github.com/seckill/seckill/cmd/bench/internal/wrk"
)

// A round's 503s (replication_timeout answers quickly and sells nothing)
// are not purchases: the replica measure rates only the 2xx answers.
func TestReplicaRateCountsOnly2xx(t *testing.T) {
	s := replicaSample{w: wrk.Result{Requests: 1000, Non2xx: 600, Seconds: 2, RPS: 500}}
	if got := s.rps(); got != 200 {
		t.Errorf("rps of 400 × 2xx in 2 s = %.0f, want 200", got)
	}
}
