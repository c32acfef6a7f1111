package bench

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"
)

// manyConnsTimeout replaces wrk's 2 s request timeout for the
// many-connections run: 10,000 closed-loop connections on two cores queue
// for seconds by construction, and that run is about whether any
// connection is dropped, not about latency.
const manyConnsTimeout = 30 * time.Second

// latencyAndConns runs measure 3 (paced latency), reads measure 5's peak
// RSS, then runs measure 6 (many connections) and reads it again.
func (r *runner) latencyAndConns(ctx context.Context, res *Results) error {
	rsrc := &Resources{}
	for _, p := range res.Purchase {
		rsrc.SeckillCPU += p.SeckillCPU
		rsrc.Reserved += p.Outcomes["reserved"]
		rsrc.FloorCPU += p.FloorCPU
		rsrc.FloorRequests += p.Floor.Requests
	}
	item, err := r.seckill.createSale(ctx, "bench latency", maxStock)
	if err != nil {
		return err
	}
	if r.cfg.Wants("latency") {
		if err := r.latency(ctx, item, res); err != nil {
			return err
		}
	}
	if rsrc.PeakRSS, err = peakRSS(r.seckill.pid()); err != nil {
		return err
	}
	if r.cfg.Wants("conns") {
		if res.ManyConns, err = r.manyConns(ctx, item); err != nil {
			return err
		}
		if rsrc.PeakRSSAfterConns, err = peakRSS(r.seckill.pid()); err != nil {
			return err
		}
	}
	if len(res.Purchase) > 0 {
		res.Resources = rsrc
	}
	return nil
}

// latency paces purchases at half the median purchase throughput, at the
// server and, as a reference, at the floor.
func (r *runner) latency(ctx context.Context, item int64, res *Results) error {
	var rps []float64
	for _, p := range res.Purchase {
		rps = append(rps, p.Seckill.RPS)
	}
	rate := math.Floor(Median(rps) / 2) // vegeta paces whole requests per second
	r.logf("paced purchases at %s/s for %s", thousands(rate), r.cfg.LatencyFor)
	busy := settle(ctx, settleLimit)
	var lr LatencyResult
	outcomes, _, err := r.seckillRun(ctx, func() (err error) {
		lr, err = pacedPurchases(ctx, r.seckill.url, r.seckill.secret, item, r.shoppers, rate, r.cfg.LatencyFor)
		if err != nil {
			return err
		}
		_, err = r.seckill.waitDrained(ctx, 5*time.Minute)
		return err
	})
	if err != nil {
		return fmt.Errorf("latency: %w", err)
	}
	lr.Outcomes, lr.BusyBefore = outcomes, busy
	res.Latency = &lr
	r.logf("latency: p50 %.2f ms, p99 %.2f ms, achieved %s/s", lr.P50ms, lr.P99ms, thousands(lr.AchievedRate))
	busy = settle(ctx, settleLimit)
	fl, err := pacedPurchases(ctx, r.floorURL, r.seckill.secret, item, r.shoppers, rate, r.cfg.LatencyFor)
	if err != nil {
		return fmt.Errorf("floor latency: %w", err)
	}
	fl.BusyBefore = busy
	res.FloorLatency = &fl
	r.logf("floor latency: p50 %.2f ms, p99 %.2f ms", fl.P50ms, fl.P99ms)
	return nil
}

func (r *runner) manyConns(ctx context.Context, item int64) (*ConnsResult, error) {
	path := itemPath(item)
	r.logf("%s keep-alive connections on GET %s for %s", thousands(float64(r.cfg.ManyConns)), path, r.cfg.ManyConnsFor)
	busy := settle(ctx, settleLimit)
	w, out, err := wrkRun{bin: r.cfg.Wrk, threads: r.cfg.Threads, connections: r.cfg.ManyConns,
		duration: r.cfg.ManyConnsFor, timeout: manyConnsTimeout, latency: true, url: r.seckill.url + path}.run(ctx)
	if err != nil {
		return nil, fmt.Errorf("many connections: %w\n%s", err, out)
	}
	w.BusyBefore = busy
	r.logf("many connections: %s req/s, socket errors %d, non-2xx %d", thousands(w.RPS), w.SocketErrors(), w.Non2xx)
	return &ConnsResult{Connections: r.cfg.ManyConns, Path: path, Wrk: w}, nil
}

// persistRounds runs measure 4: per round a fresh backlog, a fresh database
// for each side, the two sides in alternating order.
func (r *runner) persistRounds(ctx context.Context, res *Results) error {
	for round := 1; round <= r.cfg.Rounds; round++ {
		pr, err := r.persistRound(ctx, round)
		if err != nil {
			return fmt.Errorf("persistence round %d: %w", round, err)
		}
		res.Persist = append(res.Persist, pr)
		r.logf("round %d persistence: plain INSERT %s rows/s, persister %s orders/s", round,
			thousands(pr.Plain.RowsPerSec), thousands(pr.Persister.RowsPerSec))
	}
	return nil
}

func (r *runner) persistRound(ctx context.Context, round int) (PersistRound, error) {
	pr := PersistRound{Round: round}
	backlog := makeBacklog(r.cfg.PersistOrders)
	plainDB := fmt.Sprintf("seckill_bench_%s_plain_%d", r.tag, round)
	drainDB := fmt.Sprintf("seckill_bench_%s_drain_%d", r.tag, round)
	prefix := fmt.Sprintf("seckill-bench-%s-drain-%d", r.tag, round)
	plainDSN, err := withDatabase(r.cfg.MySQLDSN, plainDB)
	if err != nil {
		return pr, err
	}
	drainDSN, _ := withDatabase(r.cfg.MySQLDSN, drainDB)
	plain := func() (err error) {
		defer dropDatabase(context.WithoutCancel(ctx), r.cfg.MySQLDSN, plainDB)
		settle(ctx, settleLimit)
		pr.Plain, err = plainInsert(ctx, plainDSN, backlog)
		return err
	}
	drain := func() (err error) {
		defer dropDatabase(context.WithoutCancel(ctx), r.cfg.MySQLDSN, drainDB)
		defer deleteKeys(context.WithoutCancel(ctx), r.rdb, prefix)
		settle(ctx, settleLimit)
		pr.Persister, err = drainBacklog(ctx, r.rdb, drainDSN, prefix, backlog)
		return err
	}
	return pr, inOrder(round%2 == 0, plain, drain)
}

// notes say how the figures were taken, in the report and the JSON alike.
func notes(res Results) []string {
	var out []string
	if busy(res.Machine.LoadStart, res.Machine.Cores) {
		out = append(out, fmt.Sprintf("The machine was busy with other work when the run began (load average %s on %d cores): its figures swing more than a quiet machine's.",
			res.Machine.LoadStart, res.Machine.Cores))
	}
	if len(res.Purchase)+len(res.SoldOut)+len(res.ScaleOut) > 0 || res.Latency != nil || res.ManyConns != nil {
		out = append(out,
			"Every request comes from 127.0.0.1, so the server ran with SECKILL_RATE_IP=1000000:1000000 (the per-IP limit would otherwise be all that is measured). The per-shopper limit, purchase tokens and the admission gate were at their defaults; SECKILL_PURCHASE_TOKEN_TTL=1h so tokens minted before the rounds outlive the run.",
			"The generator shares the machine: "+generatorShare(res)+".",
			quietness(res))
	}
	if len(res.Purchase) > 0 {
		out = append(out, "CPU per 1,000 purchases counts the server process alone (not Redis or MySQL), from the start of each purchase run until its orders were in MySQL; the floor's counts its process over its runs.")
	}
	for _, s := range res.SoldOut {
		if s.Reused {
			out = append(out, "A sold-out storm outran the shopper list and sent some shoppers again, seconds after their first try (within the default per-shopper limit); raise BENCH_SHOPPER_RATE for all-new shoppers.")
			break
		}
	}
	out = append(out, scaleNote(res)...)
	if res.Latency != nil {
		out = append(out, "Latency is open-loop (vegeta's library, in the bench process): requests are sent on schedule whether or not earlier ones were answered.")
	}
	if res.ManyConns != nil {
		out = append(out, fmt.Sprintf("The many-connections run uses wrk --timeout %s: that many closed-loop connections queue for seconds on this machine by construction; it checks that none is refused or dropped.", manyConnsTimeout))
	}
	if len(res.Persist) > 0 {
		out = append(out, "Persistence: the persisters run as a default server runs them (SECKILL_WORKERS and SECKILL_BATCH_SIZE defaults), and the clock stops when MySQL has committed the last order. The plain INSERT is one prepared 500-row statement after another on one connection, each its own commit.")
	}
	return out
}

// quietness says how busy the machine was just before the runs.
func quietness(res Results) string {
	var busy []float64
	for _, p := range res.Purchase {
		busy = append(busy, p.Floor.BusyBefore, p.Seckill.BusyBefore)
	}
	for _, s := range res.SoldOut {
		busy = append(busy, s.Ceiling.BusyBefore, s.Seckill.BusyBefore)
	}
	for _, l := range []*LatencyResult{res.Latency, res.FloorLatency} {
		if l != nil {
			busy = append(busy, l.BusyBefore)
		}
	}
	if res.ManyConns != nil {
		busy = append(busy, res.ManyConns.Wrk.BusyBefore)
	}
	return fmt.Sprintf("Before each run the benchmark waited up to %s for a quarter-second in which under %.0f%% of the CPU was busy; "+
		"just before the runs a median of %s%% was (at most %s%%).",
		settleLimit, settleQuiet*100, percent(Median(busy)), percent(slices.Max(append(busy, 0))))
}

// generatorShare says how many cores wrk kept busy in the throughput runs.
func generatorShare(res Results) string {
	var base, seck []float64
	for _, p := range res.Purchase {
		base, seck = append(base, p.Floor.GenCores()), append(seck, p.Seckill.GenCores())
	}
	for _, s := range res.SoldOut {
		base, seck = append(base, s.Ceiling.GenCores()), append(seck, s.Seckill.GenCores())
	}
	if len(seck) == 0 {
		return "no wrk throughput runs"
	}
	return fmt.Sprintf("wrk kept a median of %.2f cores busy in the runs against the baselines and %.2f against seckill, of %d",
		Median(base), Median(seck), res.Machine.Cores)
}
