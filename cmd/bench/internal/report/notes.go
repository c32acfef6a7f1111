package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/seckill/seckill/cmd/bench/internal/machine"
)

// Notes say how the figures were taken, in the report and the JSON alike.
func Notes(res Results) []string {
	var out []string
	if machine.Busy(res.Machine.LoadStart, res.Machine.Cores) {
		out = append(out, fmt.Sprintf("The machine was busy with other work when the run began (load average %s on %d cores): its figures swing more than a quiet machine's.",
			res.Machine.LoadStart, res.Machine.Cores))
	}
	if len(res.Purchase)+len(res.Drop)+len(res.SoldOut)+len(res.ScaleOut) > 0 || res.Latency != nil || res.ManyConns != nil ||
		res.Pages != nil {
		out = append(out,
			"Every request comes from 127.0.0.1, so the server ran with SECKILL_RATE_IP=1000000:1000000 (the per-IP limit would otherwise be all that is measured). The per-shopper limit, purchase tokens and the admission gate were at their defaults; SECKILL_PURCHASE_TOKEN_TTL=1h so tokens minted before the rounds outlive the run.",
			"The generator shares the machine: "+generatorShare(res)+".",
			quietness(res))
	}
	if len(res.Drop) > 0 {
		out = append(out, dropNote(res.Settings.DropDemand))
	}
	if len(res.Purchase) > 0 {
		out = append(out, "CPU per 1,000 purchases counts, from /proc, the system's process (seckill or the floor), Redis and MariaDB "+
			"(when they run on this machine), wrk, and all cores (/proc/stat, machine-wide: other work on the machine too), "+
			"from the start of each run until, for seckill, its orders were in MySQL; seckill's is per purchase reserved, "+
			"the floor's per purchase answered. Everything else is machine-wide less the named parts: the kernel's network "+
			"work, the bench itself, anything else running.")
	}
	for _, s := range res.SoldOut {
		if s.Reused {
			out = append(out, "A sold-out storm outran the shopper list and sent some shoppers again, seconds after their first try (within the default per-shopper limit); raise BENCH_SHOPPER_RATE for all-new shoppers.")
			break
		}
	}
	out = append(out, scaleNote(res)...)
	out = append(out, pagesNote(res)...)
	out = append(out, powNote(res.PoW)...)
	if res.Latency != nil {
		out = append(out, "Latency is open-loop (vegeta's library, in the bench process): requests are sent on schedule whether or not earlier ones were answered.")
	}
	if res.ManyConns != nil {
		out = append(out, fmt.Sprintf("The many-connections run uses wrk --timeout %s: that many closed-loop connections queue for seconds on this machine by construction; it checks that none is refused or dropped.", res.ManyConns.Timeout))
	}
	if len(res.Persist) > 0 {
		out = append(out, "Persistence: the persisters run as a default server runs them (SECKILL_WORKERS and SECKILL_BATCH_SIZE defaults), and the clock stops when MySQL has committed the last order. The plain INSERT is one prepared 500-row statement after another on one connection, each its own commit. MariaDB's CPU is its process's user+system time (/proc) over the same window, so anything else the server did meanwhile counts too; the MariaDB CPU row sets the purchase run's (the scale-out measure's one instance, from the start of wrk until its orders were in MySQL) against the plain INSERT's per row when that measure ran, the drain's otherwise. "+
			"The drain with events is the same drain with one webhook endpoint configured and no dispatcher running (nothing is delivered: it measures the writing): "+
			"every batch also writes an order.confirmed outbox row per order, and the batch that takes the last unit a sale.sold_out row, in its transaction; "+
			"after the drain the bench counts them and voids the run unless every one is there. "+
			"Each round drains a fresh backlog: the plain INSERT, the drain and the drain with events, each into a fresh database, in an order that turns round by round.")
	}
	return out
}

// quietness says how busy the machine was just before the runs.
func quietness(res Results) string {
	var busy []float64
	for _, p := range append(slices.Clone(res.Purchase), res.Drop...) {
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
	for _, p := range refreshRounds(res) {
		busy = append(busy, p.Ceiling.BusyBefore, p.Seckill.BusyBefore, p.Revalidate.BusyBefore)
	}
	return fmt.Sprintf("Before each run the benchmark waited up to %s for a quarter-second in which under %.0f%% of the CPU was busy; "+
		"just before the runs a median of %s%% was (at most %s%%).",
		machine.SettleLimit, machine.SettleQuiet*100, percent(Median(busy)), percent(slices.Max(append(busy, 0))))
}

// generatorShare says how many cores wrk kept busy in the throughput runs.
func generatorShare(res Results) string {
	var base, seck []float64
	for _, p := range append(slices.Clone(res.Purchase), res.Drop...) {
		base, seck = append(base, p.Floor.GenCores()), append(seck, p.Seckill.GenCores())
	}
	for _, s := range res.SoldOut {
		base, seck = append(base, s.Ceiling.GenCores()), append(seck, s.Seckill.GenCores())
	}
	for _, p := range refreshRounds(res) {
		base, seck = append(base, p.Ceiling.GenCores()), append(seck, p.Seckill.GenCores())
	}
	if len(seck) == 0 {
		return "no wrk throughput runs"
	}
	return fmt.Sprintf("wrk kept a median of %.2f cores busy in the runs against the baselines and %.2f against seckill, of %d",
		Median(base), Median(seck), res.Machine.Cores)
}

// dropNote says how the drop row's demand was spread.
func dropNote(demand []float64) string {
	shares := make([]string, len(demand))
	for i, d := range demand {
		shares[i] = percent(d) + "%"
	}
	return fmt.Sprintf("The drop row: one sale of %d variants, each shopper asking for one of them "+
		"(in the sale's order: %s of the shoppers; the share falls 2.5-fold per variant away from the middle), "+
		"every variant with far more stock than a run sells; the floor gets the same requests and ignores variant_id. "+
		"Its floor is measured again beside it, round by round, and its server CPU is not in the CPU-per-purchase row.",
		len(demand), strings.Join(shares, ", "))
}

func refreshRounds(res Results) []RefreshRound {
	if res.Pages == nil {
		return nil
	}
	return res.Pages.Refresh
}
