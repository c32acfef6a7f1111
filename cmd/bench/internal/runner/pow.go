package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/cmd/bench/internal/machine"
	"github.com/seckill/seckill/cmd/bench/internal/report"
	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/harness"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/pow"
)

// The proof-of-work measure's sizes: the issue's farm of 10,000 entries
// from one /24; 30 browser solves, enough for a median and a p90 of a
// geometric distribution to mean something; and the guard's verifies.
const (
	powSolves      = 30
	powFarmEntries = 10000
	powFarmNetwork = "203.0.113.0/24"
	powVerifies    = 20000
	powUser        = "bench-pow"
	powNetwork     = "192.0.2.0/24"
	powItem        = 1
)

// powMeasure runs the proof-of-work measure against a seckill server of
// its own (for its pages) and the benchmark's Redis.
func (r *runner) powMeasure(ctx context.Context, res *report.Results) error {
	chromium, err := harness.Chromium(os.Getenv)
	if err != nil {
		return err
	}
	srv, err := startSeckill(ctx, r.cfg, r.rdb, r.dir, r.tag+"pow")
	if err != nil {
		return err
	}
	defer srv.close(ctx)
	p := &report.PowResult{Difficulty: config.DefaultPoWDifficulty, Chromium: chromium, FarmEntries: powFarmEntries,
		NetworkFree: pow.DefaultPolicy(0).NetworkFree}
	issuer := pow.IssuerFor(srv.secret, time.Now)
	r.logf("proof of work: %d solves in headless Chromium at %d bits", powSolves, p.Difficulty)
	machine.Settle(ctx)
	if err := browserSolves(ctx, chromium, srv.url, issuer, p); err != nil {
		return fmt.Errorf("proof of work in Chromium: %w", err)
	}
	keys := keyspace.New(srv.prefix)
	machine.Settle(ctx)
	if err := verifyCost(ctx, r.rdb, keys, issuer, machine.RedisPID(ctx, r.rdb, r.cfg.RedisAddr), p); err != nil {
		return fmt.Errorf("proof of work, verify: %w", err)
	}
	if err := farm(ctx, r.rdb, keys, p); err != nil {
		return fmt.Errorf("proof of work, farm: %w", err)
	}
	p.NativeRate = nativeRate(issuer.Issue(powUser, powNetwork, powItem, 0))
	res.PoW = p
	for _, row := range report.PowRows(p) {
		r.logf("%s: %s (%s)", row.Measure, row.Seckill, row.Result)
	}
	return nil
}

// solve is one answer of the page's solver.
type solve struct {
	Ms    float64 `json:"ms"`
	Proof string  `json:"proof"`
}

// browserSolves solves powSolves fresh challenges one after another with
// the sale page's own solver, imported from the server on one of its pages,
// and checks every answer with the server's verifier.
func browserSolves(ctx context.Context, chromium, base string, is *pow.Issuer, p *report.PowResult) error {
	dir, err := os.MkdirTemp("", "seckill-bench-chromium-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(dir), chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true))
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	tab, cancelTab := chromedp.NewContext(alloc)
	defer cancelTab()
	challenges := make([]string, powSolves)
	for i := range challenges {
		challenges[i] = is.Issue(powUser, powNetwork, powItem, p.Difficulty)
	}
	list, _ := json.Marshal(challenges)
	if err := chromedp.Do(tab, chromedp.Navigate(base+"/")); err != nil {
		return err
	}
	script := fmt.Sprintf(`(async () => {
  const { solveChallenge } = await import('/static/pow.js');
  const out = [];
  for (const c of %s) {
    const began = performance.now();
    const proof = await solveChallenge(c, %d);
    out.push({ ms: performance.now() - began, proof });
  }
  return out;
})()`, list, p.Difficulty)
	run, cancel := context.WithTimeout(tab, 10*time.Minute)
	defer cancel()
	solves, err := chromedp.Run(run, chromedp.Evaluate[[]solve](script, chromedp.EvalAwaitPromise))
	if err != nil {
		return err
	}
	for _, s := range solves {
		if _, err := is.Check(s.Proof, powUser, powNetwork, powItem); err != nil {
			return fmt.Errorf("the browser's answer %q: %w", s.Proof, err)
		}
		x, _ := strconv.ParseInt(s.Proof[strings.LastIndexByte(s.Proof, ':')+1:], 10, 64)
		p.BrowserMs, p.BrowserHashes = append(p.BrowserMs, s.Ms), append(p.BrowserHashes, x+1)
	}
	return nil
}

// verifyCost times a check alone, then the guard's whole verify (check,
// spend, rate count) one at a time, with this process's and Redis' CPU.
func verifyCost(ctx context.Context, rdb *redis.Client, keys keyspace.Space, is *pow.Issuer, redisPID int, p *report.PowResult) error {
	// The difficulty changes nothing of a check's cost (one hash); a low
	// one makes the proofs quick to prepare.
	proofs := make([]string, powVerifies)
	for i := range proofs {
		ch := is.Issue(powUser, powNetwork, powItem, 4)
		proofs[i] = ch + ":" + pow.Solve(ch, 4)
	}
	began := time.Now()
	for _, proof := range proofs {
		if _, err := is.Check(proof, powUser, powNetwork, powItem); err != nil {
			return err
		}
	}
	p.CheckNs = float64(time.Since(began).Nanoseconds()) / float64(len(proofs))
	ledger, pricer := pow.NewLedger(rdb, keys, time.Now), pow.NewPricer(rdb, keys, pow.DefaultPolicy(p.Difficulty), time.Now)
	self, redis0 := cpuOf(os.Getpid()), cpuOf(redisPID)
	began = time.Now()
	for _, proof := range proofs {
		c, err := is.Check(proof, powUser, powNetwork, powItem)
		if err == nil {
			err = ledger.Spend(ctx, c)
		}
		if err == nil {
			err = pricer.Seen(ctx, pow.Network{Narrow: powNetwork})
		}
		if err != nil {
			return err
		}
	}
	n := float64(len(proofs))
	p.GuardWallUs = float64(time.Since(began).Microseconds()) / n
	p.GuardCPUUs = (cpuOf(os.Getpid()) - self) * 1e6 / n
	if redisPID != 0 {
		p.GuardRedisCPUUs = (cpuOf(redisPID) - redis0) * 1e6 / n
	}
	return nil
}

func cpuOf(pid int) float64 {
	if pid == 0 {
		return 0
	}
	s, _ := machine.CPUSeconds(pid)
	return s
}

// farm drives the pricer as a farm of bots in one /24 would, each bot a
// shopper of its own asking for a challenge and then entering, as fast as
// Redis answers, and records the difficulty of every challenge.
func farm(ctx context.Context, rdb *redis.Client, keys keyspace.Space, p *report.PowResult) error {
	pricer := pow.NewPricer(rdb, keys, pow.DefaultPolicy(p.Difficulty), time.Now)
	began := time.Now()
	for i := range p.FarmEntries {
		d, err := pricer.Ask(ctx, "bot-"+strconv.Itoa(i), pow.Network{Narrow: powFarmNetwork}, pow.Asked)
		if err != nil {
			return err
		}
		if err := pricer.Seen(ctx, pow.Network{Narrow: powFarmNetwork}); err != nil {
			return err
		}
		p.FarmDifficulty = append(p.FarmDifficulty, d)
	}
	p.FarmSeconds = time.Since(began).Seconds()
	return nil
}

// nativeRate is the attempts a second Go makes on challenge on one
// goroutine for about a second: the farm's cheapest hashing.
func nativeRate(challenge string) float64 {
	began, n := time.Now(), 0
	for time.Since(began) < time.Second {
		for range 10000 {
			pow.LeadingZeros(challenge, strconv.Itoa(n))
			n++
		}
	}
	return float64(n) / time.Since(began).Seconds()
}
