package runner

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/cmd/bench/internal/machine"
	"github.com/seckill/seckill/cmd/bench/internal/persist"
	"github.com/seckill/seckill/cmd/bench/internal/report"
	"github.com/seckill/seckill/cmd/bench/internal/wrk"
	"github.com/seckill/seckill/internal/harness"
)

// manyConnsTimeout replaces wrk's 2 s request timeout for the
// many-connections run: 10,000 closed-loop connections on two cores queue
// for seconds by construction, and that run is about whether any
// connection is dropped, not about latency.
const manyConnsTimeout = 30 * time.Second

// latencyAndConns runs measure 3 (paced latency), reads measure 5's peak
// RSS, then runs the measures that hold many connections, 8 (pages held)
// and 6 (many connections), and reads it again.
func (r *runner) latencyAndConns(ctx context.Context, res *report.Results) error {
	item, err := r.seckill.createSale(ctx, "bench latency", maxStock)
	if err != nil {
		return err
	}
	if r.cfg.Wants("latency") {
		if err := r.latency(ctx, item, res); err != nil {
			return err
		}
	}
	rsrc := &report.Resources{}
	if rsrc.PeakRSS, err = machine.PeakRSS(r.seckill.Pid()); err != nil {
		return err
	}
	if r.cfg.Wants("pages") {
		if res.Pages, err = r.pages(ctx); err != nil {
			return fmt.Errorf("pages held: %w", err)
		}
	}
	if r.cfg.Wants("conns") {
		if res.ManyConns, err = r.manyConns(ctx, item); err != nil {
			return err
		}
	}
	if r.cfg.Wants("pages") || r.cfg.Wants("conns") {
		if rsrc.PeakRSSAfterConns, err = machine.PeakRSS(r.seckill.Pid()); err != nil {
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
func (r *runner) latency(ctx context.Context, item int64, res *report.Results) error {
	var rps []float64
	for _, p := range res.Purchase {
		rps = append(rps, p.Seckill.RPS)
	}
	rate := math.Floor(report.Median(rps) / 2) // vegeta paces whole requests per second
	r.logf("paced purchases at %s/s for %s", report.Thousands(rate), r.cfg.LatencyFor)
	busy := machine.Settle(ctx)
	var lr report.LatencyResult
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
	r.logf("latency: p50 %.2f ms, p99 %.2f ms, achieved %s/s", lr.P50ms, lr.P99ms, report.Thousands(lr.AchievedRate))
	busy = machine.Settle(ctx)
	fl, err := pacedPurchases(ctx, r.floorURL, r.seckill.secret, item, r.shoppers, rate, r.cfg.LatencyFor)
	if err != nil {
		return fmt.Errorf("floor latency: %w", err)
	}
	fl.BusyBefore = busy
	res.FloorLatency = &fl
	r.logf("floor latency: p50 %.2f ms, p99 %.2f ms", fl.P50ms, fl.P99ms)
	return nil
}

func (r *runner) manyConns(ctx context.Context, item int64) (*report.ConnsResult, error) {
	path := itemPath(item)
	r.logf("%s keep-alive connections on GET %s for %s", report.Thousands(float64(r.cfg.ManyConns)), path, r.cfg.ManyConnsFor)
	busy := machine.Settle(ctx)
	w, out, err := wrk.Cmd{Bin: r.cfg.Wrk, Threads: r.cfg.Threads, Connections: r.cfg.ManyConns,
		Duration: r.cfg.ManyConnsFor, Timeout: manyConnsTimeout, Latency: true, URL: r.seckill.url + path}.Run(ctx)
	if err != nil {
		return nil, fmt.Errorf("many connections: %w\n%s", err, out)
	}
	w.BusyBefore = busy
	r.logf("many connections: %s req/s, socket errors %d, non-2xx %d", report.Thousands(w.RPS), w.SocketErrors(), w.Non2xx)
	return &report.ConnsResult{Connections: r.cfg.ManyConns, Path: path, Timeout: manyConnsTimeout.String(), Wrk: w}, nil
}

// persistRounds runs measure 4: per round a fresh backlog, a fresh database
// for each side, the sides in an order that turns round by round.
func (r *runner) persistRounds(ctx context.Context, res *report.Results) error {
	if r.mysqlPID == 0 {
		r.mysqlPID = machine.MySQLPID(ctx, r.cfg.MySQLDSN)
	}
	for round := 1; round <= r.cfg.Rounds; round++ {
		pr, err := r.persistRound(ctx, round)
		if err != nil {
			return fmt.Errorf("persistence round %d: %w", round, err)
		}
		res.Persist = append(res.Persist, pr)
		r.logf("round %d persistence: plain INSERT %s rows/s, persister %s orders/s, with events %s orders/s; "+
			"MariaDB CPU %.4f / %.4f / %.4f ms per row", round, report.Thousands(pr.Plain.RowsPerSec),
			report.Thousands(pr.Persister.RowsPerSec), report.Thousands(pr.Events.RowsPerSec),
			pr.Plain.MySQLmsPerRow(), pr.Persister.MySQLmsPerRow(), pr.Events.MySQLmsPerRow())
	}
	return nil
}

// drainFunc is persist.Drain or persist.DrainWithEvents.
type drainFunc func(ctx context.Context, rdb *redis.Client, dsn, prefix string, orders []persist.Order, mysqlPID int) (persist.Run, error)

func (r *runner) persistRound(ctx context.Context, round int) (report.PersistRound, error) {
	pr := report.PersistRound{Round: round}
	backlog := persist.Backlog(r.cfg.PersistOrders)
	plainDB := fmt.Sprintf("seckill_bench_%s_plain_%d", r.tag, round)
	plainDSN, err := harness.WithDatabase(r.cfg.MySQLDSN, plainDB)
	if err != nil {
		return pr, err
	}
	plain := func() (err error) {
		defer harness.DropDatabase(context.WithoutCancel(ctx), r.cfg.MySQLDSN, plainDB)
		machine.Settle(ctx)
		pr.Plain, err = persist.Plain(ctx, plainDSN, backlog, r.mysqlPID)
		return err
	}
	drain := r.drainSide(ctx, fmt.Sprintf("drain_%d", round), persist.Drain, backlog, &pr.Persister)
	events := r.drainSide(ctx, fmt.Sprintf("events_%d", round), persist.DrainWithEvents, backlog, &pr.Events)
	return pr, turned(round-1, plain, drain, events)
}

// drainSide is one drain of backlog by run into a database and a key
// prefix of its own named by side, its figures going to into.
func (r *runner) drainSide(ctx context.Context, side string, run drainFunc, backlog []persist.Order, into *persist.Run) func() error {
	dbName := fmt.Sprintf("seckill_bench_%s_%s", r.tag, side)
	prefix := fmt.Sprintf("seckill-bench-%s-%s", r.tag, strings.ReplaceAll(side, "_", "-"))
	return func() (err error) {
		dsn, err := harness.WithDatabase(r.cfg.MySQLDSN, dbName)
		if err != nil {
			return err
		}
		defer harness.DropDatabase(context.WithoutCancel(ctx), r.cfg.MySQLDSN, dbName)
		defer deleteKeys(context.WithoutCancel(ctx), r.rdb, prefix)
		machine.Settle(ctx)
		*into, err = run(ctx, r.rdb, dsn, prefix, backlog, r.mysqlPID)
		return err
	}
}
