package runner

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/seckill/seckill/cmd/bench/internal/report"
	"github.com/seckill/seckill/cmd/bench/internal/wrk"
)

// maxStock is the most the admin API accepts, far more than a run sells.
const maxStock = 10_000_000

// throughputRounds runs measure 1, the drop and measure 2, alternating the
// systems and flipping which goes first each round so a drift in the
// machine's speed during the run does not favour one side.
func (r *runner) throughputRounds(ctx context.Context, res *report.Results) error {
	for round := 1; round <= r.cfg.Rounds; round++ {
		first := round%2 == 0
		measures := []struct {
			name, logName string
			wanted        bool
			run           func() (string, error)
		}{
			{"purchase", "purchase", r.cfg.Wants("purchase") || r.cfg.Wants("latency"),
				kept(&res.Purchase, func() (report.PurchaseRound, error) { return r.purchaseRound(ctx, round, first) },
					func(pr report.PurchaseRound) string { return rates("floor", pr.Floor, pr.Seckill, pr.Outcomes) })},
			{"drop", "drop", r.cfg.Wants("drop"),
				kept(&res.Drop, func() (report.PurchaseRound, error) { return r.dropRound(ctx, round, first) },
					func(dr report.PurchaseRound) string { return rates("floor", dr.Floor, dr.Seckill, dr.Outcomes) })},
			{"sold-out", "sold out", r.cfg.Wants("soldout"),
				kept(&res.SoldOut, func() (report.SoldOutRound, error) { return r.soldOutRound(ctx, round, first) },
					func(sr report.SoldOutRound) string { return rates("ceiling", sr.Ceiling, sr.Seckill, sr.Outcomes) })},
		}
		for _, m := range measures {
			if !m.wanted {
				continue
			}
			line, err := m.run()
			if err != nil {
				return fmt.Errorf("%s round %d: %w", m.name, round, err)
			}
			r.logf("round %d %s: %s", round, m.logName, line)
		}
	}
	return nil
}

// kept wraps a round of one measure: run's result joins *into, and the
// round is described for the log by line.
func kept[R any](into *[]R, run func() (R, error), line func(R) string) func() (string, error) {
	return func() (string, error) {
		x, err := run()
		if err != nil {
			return "", err
		}
		*into = append(*into, x)
		return line(x), nil
	}
}

// rates is a round's log line: the side seckill is compared with (named
// base), seckill's rate, and what seckill's shoppers were answered.
func rates(base string, against, seckill wrk.Result, outcomes map[string]int64) string {
	return fmt.Sprintf("%s %s req/s, seckill %s req/s (%s)", base,
		report.Thousands(against.RPS), report.Thousands(seckill.RPS), report.Mix(outcomes))
}

// inOrder runs a then b, or b then a.
func inOrder(flip bool, a, b func() error) error {
	if flip {
		a, b = b, a
	}
	if err := a(); err != nil {
		return err
	}
	return b()
}

// turned runs sides one after another, the first being side first (modulo
// their number): as first counts up, each side runs in every position in
// turn, so no side always gets the machine warmest or coldest.
func turned(first int, sides ...func() error) error {
	for i := range sides {
		if err := sides[(first+i)%len(sides)](); err != nil {
			return err
		}
	}
	return nil
}

// purchaseRound: a fresh sale with far more stock than a run sells, one wrk
// run at the floor and one at the server with the same requests.
func (r *runner) purchaseRound(ctx context.Context, round int, seckillFirst bool) (report.PurchaseRound, error) {
	item, err := r.seckill.createSale(ctx, fmt.Sprintf("bench purchase %d", round), maxStock)
	if err != nil {
		return report.PurchaseRound{Round: round}, err
	}
	return r.purchaseRuns(ctx, round, seckillFirst, item, fmt.Sprintf("purchase-%d", round), nil)
}

// purchaseRuns runs wrk at the floor and at the server, in the order
// seckillFirst says, with the same purchases of item: without variant
// shoppers leave the variant out (a one-variant sale), with it shopper i
// asks for variant(i).
func (r *runner) purchaseRuns(ctx context.Context, round int, seckillFirst bool, item int64, name string,
	variant func(int) int64) (report.PurchaseRound, error) {
	pr := report.PurchaseRound{Round: round}
	files, err := r.shopperFiles(name, item, variant)
	defer r.removeShopperFiles(files)
	if err != nil {
		return pr, err
	}
	var more []string // shoppers.lua: the first file, then whether lines carry a variant
	if variant != nil {
		more = []string{"0", "variants"}
	}
	path := itemPath(item) + "/purchase"
	floor := func() (err error) {
		pr.FloorCPU, err = r.meter(r.floor.Pid()).spent(func() error {
			pr.Floor, err = r.wrk(ctx, r.floorURL, path, files, more...)
			return err
		})
		pr.FloorCPU.Wrk = pr.Floor.GenCPUSeconds
		return err
	}
	seckill := func() (err error) {
		pr.Outcomes, pr.SeckillCPU, err = r.seckillRun(ctx, func() error {
			pr.Seckill, err = r.wrk(ctx, r.seckill.url, path, files, more...)
			if err != nil {
				return err
			}
			drained, err := r.seckill.waitDrained(ctx, 5*time.Minute)
			pr.DrainSeconds = drained.Seconds()
			return err
		})
		pr.SeckillCPU.Wrk = pr.Seckill.GenCPUSeconds
		if err == nil && report.SumOutcomes(pr.Outcomes) > int64(len(r.shoppers)) {
			err = fmt.Errorf("%w: %s purchases for %s shoppers; raise -shopper-rate (BENCH_SHOPPER_RATE)",
				errExhausted, report.Thousands(float64(report.SumOutcomes(pr.Outcomes))), report.Thousands(float64(len(r.shoppers))))
		}
		return err
	}
	return pr, inOrder(seckillFirst, floor, seckill)
}

// soldOutRound: a sale of one unit, bought once, then a storm of shoppers
// who all find it sold out, against the ceiling's constant answer.
func (r *runner) soldOutRound(ctx context.Context, round int, seckillFirst bool) (report.SoldOutRound, error) {
	sr := report.SoldOutRound{Round: round}
	item, err := r.seckill.createSale(ctx, fmt.Sprintf("bench sold out %d", round), 1)
	if err != nil {
		return sr, err
	}
	if err := r.buyOnce(ctx, item, round); err != nil {
		return sr, err
	}
	files, err := r.shopperFiles(fmt.Sprintf("soldout-%d", round), item, nil)
	defer r.removeShopperFiles(files)
	if err != nil {
		return sr, err
	}
	path := itemPath(item) + "/purchase"
	ceiling := func() (err error) {
		sr.Ceiling, err = r.wrk(ctx, r.ceilingURL, path, files)
		return err
	}
	seckill := func() (err error) {
		sr.Outcomes, _, err = r.seckillRun(ctx, func() error {
			sr.Seckill, err = r.wrk(ctx, r.seckill.url, path, files)
			return err
		})
		// A shopper seen again seconds later is still within the default
		// per-shopper limit, so a reused list only matters as a remark.
		sr.Reused = report.SumOutcomes(sr.Outcomes) > int64(len(r.shoppers))
		return err
	}
	return sr, inOrder(seckillFirst, ceiling, seckill)
}

// buyOnce takes the sale's only unit with a shopper of its own.
func (r *runner) buyOnce(ctx context.Context, item int64, round int) error {
	first, err := mintShoppers(r.seckill.secret, fmt.Sprintf("first-buyer-%d-", round), 1, time.Hour)
	if err != nil {
		return err
	}
	tok := purchaseTokens(r.seckill.secret, item, time.Hour)(first[0].user)
	status, err := r.seckill.purchase(ctx, first[0], tok, item)
	if err != nil {
		return fmt.Errorf("buy the only unit: %w", err)
	}
	if status != http.StatusAccepted {
		return fmt.Errorf("buy the only unit: status %d, want 202", status)
	}
	return nil
}

// seckillRun runs f and returns the purchase outcomes the server counted
// meanwhile and the CPU each part of the machine spent (wrk's is the
// caller's to add: only it knows which runs were wrk's).
func (r *runner) seckillRun(ctx context.Context, f func() error) (map[string]int64, report.CPUSpent, error) {
	before, err := r.seckill.scrape(ctx)
	if err != nil {
		return nil, report.CPUSpent{}, err
	}
	cpu, err := r.meter(r.seckill.Pid()).spent(f)
	if err != nil {
		return nil, report.CPUSpent{}, err
	}
	after, err := r.seckill.scrape(ctx)
	if err != nil {
		return nil, report.CPUSpent{}, err
	}
	return after.Since(before), cpu, nil
}
