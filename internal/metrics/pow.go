package metrics

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/seckill/seckill/internal/pow"
)

// powMetrics show what the proof of work does to the traffic: the proofs
// the guard judged, by result, and the difficulties it asked. A rise in
// refusals of one kind (forged, spent, too weak) is a bot trying its luck;
// difficulties climbing is the pricer answering a farm.
type powMetrics struct {
	proofs *prometheus.CounterVec
	asked  prometheus.Histogram
}

// powResults are the values of seckill_pow_proofs_total's result label,
// with the error each stands for ("accepted" has none).
var powResults = []struct {
	name string
	err  error
}{
	{"accepted", nil}, {"missing", pow.ErrMissing}, {"malformed", pow.ErrMalformed}, {"forged", pow.ErrForged},
	{"expired", pow.ErrExpired}, {"not_yours", pow.ErrNotYours}, {"other_network", pow.ErrOtherNetwork},
	{"too_weak", pow.ErrTooWeak}, {"spent", pow.ErrSpent},
}

func newPowMetrics() powMetrics {
	buckets := make([]float64, 0, pow.MaxDifficulty+1)
	for d := range pow.MaxDifficulty + 1 {
		buckets = append(buckets, float64(d))
	}
	return powMetrics{
		proofs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seckill_pow_proofs_total",
			Help: "Proofs of work the guard judged (room joins, draw entries), by result: accepted, or why refused.",
		}, []string{"result"}),
		asked: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "seckill_pow_difficulty_asked", Help: "Difficulty, in leading zero bits, of each challenge handed out.",
			Buckets: buckets,
		}),
	}
}

func (p powMetrics) register(reg *prometheus.Registry) {
	reg.MustRegister(p.proofs, p.asked)
	for _, r := range powResults {
		p.proofs.WithLabelValues(r.name)
	}
}

// Judged counts a proof the guard accepted (err nil) or refused
// (httpapi.PowMetrics).
func (m *Set) Judged(err error) {
	for _, r := range powResults {
		if (err == nil && r.err == nil) || (r.err != nil && errors.Is(err, r.err)) {
			m.pow.proofs.WithLabelValues(r.name).Inc()
			return
		}
	}
}

// Asked counts a challenge handed out at difficulty bits
// (httpapi.PowMetrics).
func (m *Set) Asked(bits int) { m.pow.asked.Observe(float64(bits)) }
