package runner

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/seckill/seckill/cmd/bench/internal/machine"
	"github.com/seckill/seckill/cmd/bench/internal/report"
	"github.com/seckill/seckill/cmd/bench/internal/wrk"
)

// scaleLoad is a workload the scale-out measure runs at one instance and
// at two: the purchase measure's, or the sold-out measure's.
type scaleLoad struct {
	key   string // names files and logs
	name  string // in the report
	stock int
	// drain keeps the CPU window open until the run's orders are in MySQL,
	// as the purchase measure does: persisting them is part of the work.
	drain bool
}

var (
	// maxStock with one unit per shopper and no shopper sent twice: the
	// sale cannot sell out (checked again from the answers).
	purchaseLoad = scaleLoad{key: "purchase", name: "purchases", stock: maxStock, drain: true}
	// One unit, bought before the storm: every answer is sold out.
	soldOutLoad = scaleLoad{key: "soldout", name: "answers once sold out", stock: 1}
)

// scaleOutRounds runs measure 7: per round, the purchase workload at one
// instance and at two, then the sold-out workload likewise, flipping which
// side goes first each round as the other measures do.
func (r *runner) scaleOutRounds(ctx context.Context, res *report.Results) error {
	if r.cfg.Threads < 2 {
		r.logf("scale-out skipped: it gives each of two instances its own wrk threads, and -threads is %d", r.cfg.Threads)
		return nil
	}
	if len(r.shoppers) >= purchaseLoad.stock {
		return fmt.Errorf("scale-out: %d shoppers could buy all %d units", len(r.shoppers), purchaseLoad.stock)
	}
	for round := 1; round <= r.cfg.Rounds; round++ {
		for _, load := range []scaleLoad{purchaseLoad, soldOutLoad} {
			sr, err := r.scaleOutRound(ctx, load, round, round%2 == 0)
			if err != nil {
				return fmt.Errorf("scale-out round %d, %s: %w", round, load.name, err)
			}
			if load == purchaseLoad {
				res.ScaleOut = append(res.ScaleOut, sr)
			} else {
				res.ScaleOutSoldOut = append(res.ScaleOutSoldOut, sr)
			}
			r.logf("round %d scale-out, %s: one instance %s req/s, two %s req/s (%s)", round, load.name,
				report.Thousands(sr.One.RPS), report.Thousands(sr.Two.RPS), report.PerInstance(sr.Two))
		}
	}
	return nil
}

// scaleOutRound runs load at the server alone and, with a second instance
// started for the purpose, at both. The second instance runs only for its
// case: idle, it would still take a share of persisting the lone
// instance's orders, and that case would no longer be one instance.
func (r *runner) scaleOutRound(ctx context.Context, load scaleLoad, round int, twoFirst bool) (report.ScaleOutRound, error) {
	sr := report.ScaleOutRound{Round: round}
	one := func() (err error) {
		sr.One, err = r.scaleCase(ctx, load, round, r.seckill)
		return err
	}
	two := func() error {
		logPath := filepath.Join(r.dir, fmt.Sprintf("seckill-peer-%s-%d.log", load.key, round))
		peer, err := r.seckill.startPeer(ctx, logPath)
		if err != nil {
			return fmt.Errorf("second instance: %w", err)
		}
		defer peer.Stop(20 * time.Second)
		sr.Two, err = r.scaleCase(ctx, load, round, r.seckill, peer)
		return err
	}
	return sr, inOrder(twoFirst, one, two)
}

// scaleCase runs load at servers on a sale of its own (a shopper may buy
// once per sale) and checks the answers the servers counted.
func (r *runner) scaleCase(ctx context.Context, load scaleLoad, round int, servers ...*seckillServer) (report.ScaleCase, error) {
	name := fmt.Sprintf("bench scale-out %s %d, %d instances", load.key, round, len(servers))
	item, err := r.seckill.createSale(ctx, name, load.stock)
	if err != nil {
		return report.ScaleCase{}, err
	}
	if load.stock == 1 {
		if err := r.buyOnce(ctx, item, round); err != nil {
			return report.ScaleCase{}, err
		}
	}
	files, err := r.shopperFiles(fmt.Sprintf("scale-%s-%d-%d", load.key, round, len(servers)), item, nil)
	defer r.removeShopperFiles(files)
	if err != nil {
		return report.ScaleCase{}, err
	}
	sc, err := r.scaleRun(ctx, load, servers, itemPath(item)+"/purchase", files)
	if err != nil {
		return sc, err
	}
	return sc, r.checkScale(load, &sc)
}

// scaleRun drives servers with one wrk each and counts what every part of
// the machine spent, from the start of the run until its orders were
// persisted (purchases) or wrk stopped (sold out).
func (r *runner) scaleRun(ctx context.Context, load scaleLoad, servers []*seckillServer, path, files string) (report.ScaleCase, error) {
	var sc report.ScaleCase
	meter := r.meter()
	urls := make([]string, len(servers))
	for i, s := range servers {
		meter.servers, urls[i] = append(meter.servers, s.Pid()), s.url
	}
	before, err := scrapeAll(ctx, servers)
	if err != nil {
		return sc, err
	}
	busy := machine.Settle(ctx) // outside the window: its wait is not the run's
	sc.CPU, err = meter.spent(func() (err error) {
		if sc.Wrk, sc.MachineBusy, err = r.wrkAcross(ctx, urls, path, files); err != nil || !load.drain {
			return err
		}
		drained, err := r.seckill.waitDrained(ctx, 5*time.Minute) // the backlog is shared: any instance sees it
		sc.DrainSeconds = drained.Seconds()
		return err
	})
	if err != nil {
		return sc, err
	}
	after, err := scrapeAll(ctx, servers)
	sc.Outcomes = map[string]int64{}
	for i := range servers {
		sc.PerInstance = append(sc.PerInstance, after[i].Since(before[i]))
		report.AddOutcomes(sc.Outcomes, sc.PerInstance[i])
		sc.RoundTrips += int64(after[i].RoundTrips - before[i].RoundTrips)
		sc.PersistTx += int64(after[i].PersistTx - before[i].PersistTx)
		sc.PersistOrders += int64(after[i].PersistOrders - before[i].PersistOrders)
	}
	for i := range sc.Wrk {
		sc.Wrk[i].BusyBefore = busy
		sc.RPS, sc.CPU.Wrk = sc.RPS+sc.Wrk[i].RPS, sc.CPU.Wrk+sc.Wrk[i].GenCPUSeconds
	}
	return sc, err
}

func scrapeAll(ctx context.Context, servers []*seckillServer) ([]Scrape, error) {
	out := make([]Scrape, len(servers))
	for i, s := range servers {
		var err error
		if out[i], err = s.scrape(ctx); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// checkScale refuses a purchase run that sent a shopper twice or met a sold
// out sale, either of which would measure something else; a sold-out storm
// that went round its list again is only remarked on, as in measure 2.
func (r *runner) checkScale(load scaleLoad, sc *report.ScaleCase) error {
	parts := wrk.Split(r.cfg.Threads, r.cfg.Connections, len(sc.PerInstance))
	for i, p := range parts {
		if have := shoppersIn(len(r.shoppers), r.cfg.Threads, p); report.SumOutcomes(sc.PerInstance[i]) > have {
			if load != purchaseLoad {
				sc.Reused = true
				continue
			}
			return fmt.Errorf("%w: instance %d counted %s purchases for %s shoppers; raise -shopper-rate (BENCH_SHOPPER_RATE)",
				errExhausted, i+1, report.Thousands(float64(report.SumOutcomes(sc.PerInstance[i]))), report.Thousands(float64(have)))
		}
	}
	if sold := report.SoldOutAnswers(sc.Outcomes); load == purchaseLoad && sold > 0 {
		return fmt.Errorf("the purchase sale answered sold out %d times: the run measured a sell-out", sold)
	}
	return nil
}
