package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// targetPowSolveMs bounds the median solve in a browser at the default
// difficulty (issue 17): a shopper waits this long at most, typically.
const targetPowSolveMs = 1000

// PowResult is the proof-of-work measure: what a browser pays at the
// default difficulty, what the server pays per verify, and what a farm of
// bots pays at the difficulty the server adapts to it.
type PowResult struct {
	Difficulty int    `json:"default_difficulty"`
	Chromium   string `json:"chromium"`
	// BrowserMs are solves in headless Chromium through the sale page's
	// own solver (pow.js and its worker), one after another; BrowserHashes
	// the hashes each tried (its x + 1: the solver counts from 0).
	BrowserMs     []float64 `json:"browser_solve_ms"`
	BrowserHashes []int64   `json:"browser_hashes"`
	// CheckNs is one check (MAC, parse, one SHA-256), in the bench process.
	CheckNs float64 `json:"check_ns"`
	// The guard's whole verify, one at a time against the benchmark's
	// Redis: check, spend (SET NX) and the network's rate count (INCR,
	// EXPIRE). Wall time, this process's CPU and Redis' CPU (0 when Redis
	// runs elsewhere), per verify.
	GuardWallUs     float64 `json:"guard_wall_us"`
	GuardCPUUs      float64 `json:"guard_cpu_us"`
	GuardRedisCPUUs float64 `json:"guard_redis_cpu_us"`
	// The farm: FarmEntries shoppers of one /24 each asking for a challenge
	// and entering, as fast as the pricer answers (FarmSeconds); the
	// difficulty each entry's challenge asked, in order.
	FarmEntries    int     `json:"farm_entries"`
	FarmSeconds    float64 `json:"farm_seconds"`
	FarmDifficulty []int   `json:"farm_difficulty"`
	// NativeRate is SHA-256 solve attempts a second in Go on one core, the
	// cheapest a farm can hash without special hardware.
	NativeRate float64 `json:"native_hashes_per_second"`
	// NetworkFree is the proofs a minute a network has accepted at the base
	// (one an entry).
	NetworkFree int64 `json:"network_free_per_minute"`
}

// BrowserRate is the browser's hashes a second over all its solves.
func (p PowResult) BrowserRate() float64 {
	var h int64
	var ms float64
	for i, v := range p.BrowserMs {
		h, ms = h+p.BrowserHashes[i], ms+v
	}
	return Ratio(float64(h), ms/1000)
}

// FarmHashes is what the farm expects to hash: 2^d per entry.
func (p PowResult) FarmHashes() float64 {
	var sum float64
	for _, d := range p.FarmDifficulty {
		sum += math.Ldexp(1, d)
	}
	return sum
}

// BaseHashes is what the same entries would hash at the base difficulty.
func (p PowResult) BaseHashes() float64 {
	return float64(p.FarmEntries) * math.Ldexp(1, p.Difficulty)
}

// PowRows are the proof of work's rows of the summary, none without it.
func PowRows(p *PowResult) []Row {
	if p == nil {
		return nil
	}
	med, p90 := Median(p.BrowserMs), percentile(p.BrowserMs, 0.9)
	farmCPU, baseCPU := Ratio(p.FarmHashes(), p.NativeRate), Ratio(p.BaseHashes(), p.NativeRate)
	return []Row{{
		Measure: fmt.Sprintf("proof of work: solve in headless Chromium at the default difficulty (%d bits), %d challenges, the sale page's Web Worker (WebCrypto)",
			p.Difficulty, len(p.BrowserMs)),
		Seckill:  fmt.Sprintf("median %.0f ms, p90 %.0f ms, max %.0f ms; %s hashes/s", med, p90, slices.Max(p.BrowserMs), Thousands(p.BrowserRate())),
		Baseline: "—", Ratio: "—", Target: fmt.Sprintf("median < %d ms", targetPowSolveMs),
		Result: passFail(med < targetPowSolveMs, ""),
	}, {
		Measure: "proof of work: the server's cost per verify",
		Seckill: fmt.Sprintf("check (MAC, one SHA-256) %.1f µs CPU; the guard's whole verify (check, spend in Redis, rate count) %.0f µs wall one at a time, %.1f µs CPU here + %.1f µs Redis",
			p.CheckNs/1000, p.GuardWallUs, p.GuardCPUUs, p.GuardRedisCPUUs),
		Baseline: fmt.Sprintf("one browser solve at the default: %s hashes expected", Thousands(math.Ldexp(1, p.Difficulty))),
		Ratio:    "—", Target: "—", Result: "info",
	}, {
		Measure: fmt.Sprintf("proof of work: a bot farm of %s entries from one /24, as fast as it can, at the adapted difficulty", Thousands(float64(p.FarmEntries))),
		Seckill: fmt.Sprintf("difficulty %d → %d bits; %.3g hashes expected: %s CPU seconds at the measured native rate (%s hashes/s, Go, one core)",
			slices.Min(p.FarmDifficulty), slices.Max(p.FarmDifficulty), p.FarmHashes(), Thousands(farmCPU), Thousands(p.NativeRate)),
		Baseline: fmt.Sprintf("the same entries at the base %d bits: %.1f CPU seconds", p.Difficulty, baseCPU),
		Ratio:    times(Ratio(farmCPU, baseCPU)), Target: "—", Result: "info",
	}}
}

// percentile is the q-quantile of xs (nearest rank), 0 for none.
func percentile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, int(math.Ceil(q*float64(len(s))))-1)]
}

// writePowRuns lists the browser's solves and the farm's difficulty as it
// rose, entry by entry, in runs of equal difficulty.
func writePowRuns(w io.Writer, p *PowResult) {
	if p == nil {
		return
	}
	solves := make([]string, len(p.BrowserMs))
	for i, v := range p.BrowserMs {
		solves[i] = fmt.Sprintf("%.0f", v)
	}
	fmt.Fprintf(w, "\nProof of work, solves in Chromium at %d bits (ms, in order): %s.\n", p.Difficulty, strings.Join(solves, ", "))
	fmt.Fprintf(w, "\nProof of work, the farm's difficulty (%s entries in %.1f s):\n\n", Thousands(float64(p.FarmEntries)), p.FarmSeconds)
	var rows [][]string
	for from := 0; from < len(p.FarmDifficulty); {
		to := from
		for to+1 < len(p.FarmDifficulty) && p.FarmDifficulty[to+1] == p.FarmDifficulty[from] {
			to++
		}
		d := p.FarmDifficulty[from]
		n := float64(to - from + 1)
		rows = append(rows, []string{fmt.Sprintf("%s–%s", Thousands(float64(from+1)), Thousands(float64(to+1))),
			fmt.Sprint(d), fmt.Sprintf("%.3f", Ratio(n*math.Ldexp(1, d), p.NativeRate))})
		from = to + 1
	}
	writeTable(w, []string{"entries", "difficulty (bits)", "CPU seconds at the native rate"}, rows)
}

// powNote says how the proof-of-work figures were taken.
func powNote(p *PowResult) []string {
	if p == nil {
		return nil
	}
	return []string{fmt.Sprintf("Proof of work: the browser figures are %d challenges at the server's default difficulty, minted with the server's key and solved "+
		"one after another in %s (headless) by the sale page's own solver, imported from the running server's /static/pow.js on one of its pages, so under its "+
		"Content-Security-Policy; each solve starts a worker, as the page does, and every answer was checked by the server's verifier. A solve's work is geometric "+
		"(a median of 0.69 × 2^d hashes, a p90 of 2.3 × 2^d), so the figures move between runs. The verify figures run the check, then the whole guard "+
		"one verify at a time against the benchmark's Redis. The farm asks the pricer (pow.Pricer, real Redis) for %s challenges from one /24, each followed by "+
		"its entry, as fast as Redis answers; its CPU is computed, not spent: the sum over entries of 2^d expected hashes, divided by the hash rate Go "+
		"measured on one core (a farm with GPUs pays less; one that stays within %d accepted proofs a minute per /24, one an entry, with few accounts, pays "+
		"the base but needs %.1f hours for %s entries).",
		len(p.BrowserMs), p.Chromium, Thousands(float64(p.FarmEntries)), p.NetworkFree,
		Ratio(float64(p.FarmEntries), float64(p.NetworkFree))/60, Thousands(float64(p.FarmEntries)))}
}
