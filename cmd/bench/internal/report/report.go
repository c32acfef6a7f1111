package report

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// WriteReport writes the machine, the summary table, every individual run
// and the notes as Markdown.
func WriteReport(w io.Writer, res Results) {
	m := res.Machine
	fmt.Fprintf(w, "Measured %s on %s, %d cores, Linux %s; %s, Redis %s, MariaDB/MySQL %s, wrk %s. "+
		"Load average %s at the start, %s at the end.\n\n",
		m.Date, m.CPU, m.Cores, m.Kernel, m.Go, m.Redis, m.MariaDB, m.Wrk, m.LoadStart, m.LoadEnd)
	fmt.Fprintf(w, "%s\n\n", describeSettings(res.Settings))
	writeTable(w, []string{"measure", "seckill", "baseline", "ratio", "target", "result"}, rowCells(res.Summary))
	if len(res.Purchase)+len(res.Drop)+len(res.SoldOut)+len(res.Persist)+len(res.ScaleOut)+len(res.ScaleOutSoldOut) > 0 ||
		res.Latency != nil || res.Pages != nil || res.PoW != nil {
		fmt.Fprintf(w, "\n### Individual runs\n")
	}
	writePurchaseRuns(w, "Purchase throughput", res.Purchase)
	writePurchaseCPU(w, res.Purchase)
	writePurchaseRuns(w, fmt.Sprintf("Purchase throughput, a drop of %d variants with skewed demand", len(res.Settings.DropDemand)), res.Drop)
	writeSoldOutRuns(w, res.SoldOut)
	writeScaleRuns(w, "Scale-out, purchases", res.ScaleOut, true)
	writeScaleRuns(w, "Scale-out, once sold out", res.ScaleOutSoldOut, false)
	writeScaleCPU(w, res)
	writePagesRuns(w, res.Pages)
	writePersistRuns(w, res.Persist)
	writePowRuns(w, res.PoW)
	writePaced(w, "Paced run", res.Latency)
	writePaced(w, "The floor at the same rate", res.FloorLatency)
	if len(res.Notes) > 0 {
		fmt.Fprintf(w, "\nNotes:\n\n")
		for _, n := range res.Notes {
			fmt.Fprintf(w, "- %s\n", n)
		}
	}
}

func describeSettings(s Settings) string {
	pages := ""
	if s.HeldPages > 0 {
		pages = fmt.Sprintf(" %s held pages; %s shoppers per follow run.", Thousands(float64(s.HeldPages)),
			Thousands(float64(s.FollowShoppers)))
	}
	return fmt.Sprintf("Settings: %d rounds; wrk -t%d -c%d -d%s with %s shoppers minted; paced run %s; "+
		"%s-order backlog; %s connections for %s.%s", s.Rounds, s.Threads, s.Connections, s.Duration,
		Thousands(float64(s.Shoppers)), s.LatencyFor, Thousands(float64(s.PersistOrders)),
		Thousands(float64(s.ManyConns)), s.ManyConnsFor, pages)
}

func rowCells(rows []Row) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = []string{r.Measure, r.Seckill, r.Baseline, r.Ratio, r.Target, r.Result}
	}
	return out
}

// writeRuns writes a table of a measure's rounds under title, one row of
// cells per round; nothing when the measure did not run.
func writeRuns[R any](w io.Writer, title string, header []string, rounds []R, cells func(R) []string) {
	if len(rounds) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s:\n\n", title)
	rows := make([][]string, 0, len(rounds))
	for _, r := range rounds {
		rows = append(rows, cells(r))
	}
	writeTable(w, header, rows)
}

func writePurchaseRuns(w io.Writer, title string, rounds []PurchaseRound) {
	writeRuns(w, title+" (wrk, req/s)", []string{"round", "floor", "seckill", "ratio", "seckill outcomes (metrics)",
		"backlog drained after", "wrk cores (floor / seckill)"}, rounds, func(r PurchaseRound) []string {
		return []string{fmt.Sprint(r.Round), Thousands(r.Floor.RPS), Thousands(r.Seckill.RPS),
			times(Ratio(r.Seckill.RPS, r.Floor.RPS)), Mix(r.Outcomes), fmt.Sprintf("%.1f s", r.DrainSeconds),
			fmt.Sprintf("%.2f / %.2f", r.Floor.GenCores(), r.Seckill.GenCores())}
	})
}

func writeSoldOutRuns(w io.Writer, rounds []SoldOutRound) {
	writeRuns(w, "Throughput once sold out (wrk, req/s)", []string{"round", "ceiling", "seckill", "ratio",
		"seckill outcomes (metrics)", "wrk cores (ceiling / seckill)"}, rounds, func(r SoldOutRound) []string {
		outcomes := Mix(r.Outcomes)
		if r.Reused {
			outcomes += " (shopper list went round again)"
		}
		return []string{fmt.Sprint(r.Round), Thousands(r.Ceiling.RPS), Thousands(r.Seckill.RPS),
			times(Ratio(r.Seckill.RPS, r.Ceiling.RPS)), outcomes,
			fmt.Sprintf("%.2f / %.2f", r.Ceiling.GenCores(), r.Seckill.GenCores())}
	})
}

func writePersistRuns(w io.Writer, rounds []PersistRound) {
	writeRuns(w, "Persistence (rows/s)", []string{"round", "plain INSERT", "persister", "ratio", "persister with events",
		"with / without events", "time (plain / persister / with events)",
		"MariaDB CPU ms per row (plain / persister / with events)"}, rounds, func(r PersistRound) []string {
		return []string{fmt.Sprint(r.Round), Thousands(r.Plain.RowsPerSec), Thousands(r.Persister.RowsPerSec),
			times(Ratio(r.Persister.RowsPerSec, r.Plain.RowsPerSec)), Thousands(r.Events.RowsPerSec),
			times(Ratio(r.Events.RowsPerSec, r.Persister.RowsPerSec)),
			fmt.Sprintf("%.2f s / %.2f s / %.2f s", r.Plain.Seconds, r.Persister.Seconds, r.Events.Seconds),
			fmt.Sprintf("%.4f / %.4f / %.4f", r.Plain.MySQLmsPerRow(), r.Persister.MySQLmsPerRow(), r.Events.MySQLmsPerRow())}
	})
}

func writePaced(w io.Writer, name string, l *LatencyResult) {
	if l == nil {
		return
	}
	fmt.Fprintf(w, "\n%s: %s requests in %.1f s, asked %s/s, sent %s/s; p50 %.2f ms, p95 %.2f ms, p99 %.2f ms, max %.1f ms; status codes %v.\n",
		name, Thousands(float64(l.Requests)), l.Seconds, Thousands(l.TargetRate), Thousands(l.AchievedRate),
		l.P50ms, l.P95ms, l.P99ms, l.Maxms, l.StatusCodes)
}

func writeTable(w io.Writer, header []string, rows [][]string) {
	fmt.Fprintf(w, "| %s |\n", strings.Join(header, " | "))
	fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(header)))
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = cell(c)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
}

const docsIntro = `# Benchmarks

` + "`make bench`" + ` measures the real server (` + "`bin/seckill serve`" + `, built from the tree) against
baselines it builds and measures itself, in the same run, on the same machine. On a 2-core
machine absolute figures move by a third between sessions; ratios of medians taken alternately
in one session do not, so the targets are ratios.

- **floor**: a bare Gin handler (` + "`gin.New()`" + `, no middleware) doing one EVALSHA of a small
  deduct script per purchase: HTTP plus one Redis round trip.
- **ceiling**: a bare Gin handler answering a constant, pre-encoded sold-out JSON body (and, for
  the pages measure, a constant sale body with the server's ETag and Cache-Control headers).
- **plain INSERT**: the same orders inserted into the same ` + "`orders`" + ` table, 500 rows per statement.

Every throughput figure comes from wrk (` + "`-t2 -c128 -d8s`" + ` by default), with a Lua script that gives each
request its own shopper (JWT and purchase token); the baselines get the same requests. The floor,
the ceiling and the server each run in a process of their own, and the systems alternate round by
round, each run after a short wait for the machine to go quiet. The server's own metrics confirm what its
answers were. The purchase runs also count the CPU each part of the machine spent (the server or
the floor, Redis, MariaDB, wrk, everything else, all cores) per purchase. Latency is measured
open-loop at a constant arrival rate of half the median purchase throughput (vegeta's library),
so a slow answer cannot hide by slowing the sender; the floor is paced at the same rate, and the
server's p99 is judged against twice the floor's (what the generator and the machine allow), its
p50 against 1 ms. The drop row is the purchase measure on a sale of ten variants (sizes EU 38 to
EU 47) with skewed demand, 60% of shoppers asking for the two middle sizes, against a floor run of
its own; it sits beside the one-variant row to show what spreading a sale over variants costs. The persistence figure
drains a backlog put into a sale's Redis stream in the reserve script's format, with the
project's own persisters at the server's default settings; the same backlog is drained again with
webhooks on (one ` + "`SECKILL_WEBHOOK_URL`" + `), each order also announced by an ` + "`order.confirmed`" + `
row written to the outbox in its transaction, to show what the events cost.

The pages rows measure what open sale pages cost. An open page asks for its sale once a second
and for the server's time every ten seconds; after a purchase it follows the order until MySQL
has it. The refresh (` + "`GET /api/v1/items/{id}`" + `) runs closed-loop against the ceiling, and again
with ` + "`If-None-Match`" + `, as a browser's cache revalidates. Then a thousand held pages (goroutines
in the bench, a connection each) are measured alone, and kept open while two thousand shoppers
buy once each and follow their orders to confirmation, by polling every 500 ms as the sale page
did, or by one event stream per order (` + "`GET /api/v1/orders/{id}/events`" + `), alternating: per
purchase followed, the requests, the server's CPU and the time to confirmation.

The scale-out figures run the purchase and the sold-out workloads at one server instance and at
two sharing the database and the Redis prefix (one wrk per instance, the same total connections),
and count the CPU each part of the machine spent: on two cores a second instance has no idle core
to use, so the ratio shows what running two costs or gains rather than what more machines would.

The proof-of-work rows price bots (issue 17): how long the sale page's solver takes in headless
Chromium at the server's default difficulty, what the server spends to verify a proof, and what a
farm of bots entering ten thousand times from one /24, as fast as it can, pays in CPU at the
difficulty the server adapts to it (computed from the hash rate Go measures on one core).

Rerun with ` + "`make bench`" + ` (a few minutes; it installs wrk if missing and rewrites this page). Tune
with ` + "`BENCH_ROUNDS`, `BENCH_DURATION`, `BENCH_CONNECTIONS`" + ` and the other ` + "`BENCH_*`" + ` variables
(` + "`bin/bench -h`" + `); every run's raw figures go to ` + "`results/bench-<UTC time>.json`" + `.

## Latest run

`

// WriteDocs writes the report under an introduction to path.
func WriteDocs(path string, res Results) error {
	var b strings.Builder
	b.WriteString(docsIntro)
	WriteReport(&b, res)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
