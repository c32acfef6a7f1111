package report

import (
	"fmt"
	"strings"

	"github.com/seckill/seckill/cmd/bench/internal/persist"
)

// Targets from the project's issues (14 is the latest), each a ratio to a
// baseline of the same run but p50, which is an absolute bound.
const (
	targetPurchase   = 1.0 // × floor
	targetSoldOut    = 0.9 // × ceiling
	targetP50ms      = 1.0 // at half the purchase throughput
	targetP99inFloor = 2.0 // × the floor's p99 at the same rate
	targetPersist    = 0.8 // × plain INSERT
	targetRefresh    = 0.8 // × ceiling: the sale page's refresh
	// targetMySQLCPU bounds MariaDB's CPU per order persisted, × what it
	// spends per row of the plain INSERT.
	targetMySQLCPU = 2.0
)

// minShare is the least share of the expected answer (reserved, or sold
// out) a run needs for its throughput to count: a run of refusals for
// another reason measures that refusal, not the purchase path.
const minShare = 0.99

// soldOut says whether a purchase outcome is a sold-out answer. The server
// labels where it decided (sold_out from the script, gated_sold_out from the
// admission gate, and so on), so any label ending in sold_out counts.
func soldOut(outcome string) bool { return strings.HasSuffix(outcome, "sold_out") }

// Row is one line of the report's table.
type Row struct {
	Measure  string `json:"measure"`
	Seckill  string `json:"seckill"`
	Baseline string `json:"baseline"`
	Ratio    string `json:"ratio"`
	Target   string `json:"target"`
	Result   string `json:"result"` // PASS, FAIL (with why), or info
}

// Summarize turns the runs into the report's rows: medians, ratios of
// medians, and whether each target is met.
func Summarize(res Results) []Row {
	var rows []Row
	if len(res.Purchase) > 0 {
		rows = append(rows, purchaseRow(res.Purchase))
	}
	if len(res.Drop) > 0 {
		rows = append(rows, dropRow(res))
	}
	if len(res.SoldOut) > 0 {
		rows = append(rows, soldOutRow(res.SoldOut))
	}
	if res.Latency != nil {
		rows = append(rows, latencyRow(*res.Latency, res.FloorLatency))
	}
	if len(res.Persist) > 0 {
		rows = append(rows, persistRow(res.Persist))
		if row, ok := mysqlCPURow(res); ok {
			rows = append(rows, row)
		}
		rows = append(rows, eventsRow(res.Persist))
	}
	if res.ManyConns != nil {
		rows = append(rows, connsRow(*res.ManyConns))
	}
	if res.Resources != nil {
		rows = append(rows, rssRow(*res.Resources))
	}
	if len(res.Purchase) > 0 {
		rows = append(rows, purchaseCPURow(res.Purchase))
	}
	rows = append(rows, pagesRows(res.Pages)...)
	rows = append(rows, scaleRows(res)...)
	rows = append(rows, PowRows(res.PoW)...)
	return rows
}

func purchaseRow(rounds []PurchaseRound) Row {
	return floorRow("purchase throughput, distinct shoppers, sale not selling out", rounds, "")
}

// dropRow is the drop's purchases against the floor, under the purchase
// target (a drop is the sale the shop sells), and beside the one-variant
// row of the same run, which it is meant to be compared with.
func dropRow(res Results) Row {
	measure := "purchase throughput, a drop of several variants with skewed demand, distinct shoppers, not selling out"
	if d := res.Settings.DropDemand; len(d) > 1 && len(d)%2 == 0 {
		measure = fmt.Sprintf("purchase throughput, a drop of %d variants, %s%% of shoppers on the middle two, distinct shoppers, not selling out",
			len(d), percent(d[len(d)/2-1]+d[len(d)/2]))
	}
	versus := ""
	if len(res.Purchase) > 0 {
		versus = "; " + times(Ratio(medianRPS(res.Drop), medianRPS(res.Purchase))) + " the one-variant row"
	}
	return floorRow(measure, res.Drop, versus)
}

// floorRow is a purchase workload's row: the server's median throughput
// against the floor's, judged against the purchase target.
func floorRow(measure string, rounds []PurchaseRound, more string) Row {
	var floor []float64
	all := map[string]int64{}
	for _, r := range rounds {
		floor = append(floor, r.Floor.RPS)
		AddOutcomes(all, r.Outcomes)
	}
	seckill := medianRPS(rounds)
	q := Ratio(seckill, Median(floor))
	verdict := judge(q >= targetPurchase, all["reserved"], SumOutcomes(all), "reserved")
	return Row{
		Measure:  measure,
		Seckill:  fmt.Sprintf("%s req/s (%s)%s", Thousands(seckill), Mix(all), more),
		Baseline: "floor " + Thousands(Median(floor)) + " req/s",
		Ratio:    times(q), Target: fmt.Sprintf("≥ %.1f× floor", targetPurchase), Result: verdict,
	}
}

// medianRPS is the server's median throughput over rounds.
func medianRPS(rounds []PurchaseRound) float64 {
	var rps []float64
	for _, r := range rounds {
		rps = append(rps, r.Seckill.RPS)
	}
	return Median(rps)
}

func soldOutRow(rounds []SoldOutRound) Row {
	var ceiling, seckill []float64
	all := map[string]int64{}
	for _, r := range rounds {
		ceiling, seckill = append(ceiling, r.Ceiling.RPS), append(seckill, r.Seckill.RPS)
		AddOutcomes(all, r.Outcomes)
	}
	q := Ratio(Median(seckill), Median(ceiling))
	verdict := judge(q >= targetSoldOut, SoldOutAnswers(all), SumOutcomes(all), "sold out")
	return Row{
		Measure:  "throughput once sold out (stock 1, bought once)",
		Seckill:  fmt.Sprintf("%s req/s (%s)", Thousands(Median(seckill)), Mix(all)),
		Baseline: "ceiling " + Thousands(Median(ceiling)) + " req/s",
		Ratio:    times(q), Target: fmt.Sprintf("≥ %.1f× ceiling", targetSoldOut), Result: verdict,
	}
}

// latencyRow judges p50 against an absolute bound and p99 against the
// floor's at the same rate, and says how each condition fared: a p99 can
// only be as good as what the generator and the machine allow.
func latencyRow(l LatencyResult, floor *LatencyResult) Row {
	errs := failures(l)
	p50ok := l.P50ms <= targetP50ms
	row := Row{
		Measure: "purchase latency at a constant half of the median purchase throughput",
		Seckill: fmt.Sprintf("p50 %.2f ms, p99 %.2f ms at %s/s (achieved %s/s, %d errors, %s)",
			l.P50ms, l.P99ms, Thousands(l.TargetRate), Thousands(l.AchievedRate), errs, Mix(l.Outcomes)),
		Baseline: "—", Ratio: "—",
		Target: fmt.Sprintf("p50 ≤ %.0f ms, p99 ≤ %.0f× the floor's", targetP50ms, targetP99inFloor),
	}
	p99 := "p99 FAIL, no floor run"
	p99ok := false
	if floor != nil {
		q := Ratio(l.P99ms, floor.P99ms)
		p99ok = floor.P99ms > 0 && q <= targetP99inFloor
		p99 = "p99 " + passFail(p99ok, "")
		row.Baseline = fmt.Sprintf("floor at the same rate: p50 %.2f ms, p99 %.2f ms (%d errors)", floor.P50ms, floor.P99ms, failures(*floor))
		row.Ratio = times(q) + " (p99)"
		row.Target = fmt.Sprintf("p50 ≤ %.0f ms, p99 ≤ %.0f× the floor's (%.2f ms)", targetP50ms, targetP99inFloor,
			targetP99inFloor*floor.P99ms)
	}
	both := "p50 " + passFail(p50ok, "") + ", " + p99
	switch {
	case errs > 0:
		row.Result = "FAIL (errors; " + both + ")"
	case p50ok && p99ok:
		row.Result = "PASS (" + both + ")"
	default:
		row.Result = "FAIL (" + both + ")"
	}
	return row
}

// failures is the paced requests that got no 2xx answer.
func failures(l LatencyResult) uint64 {
	return l.Requests - uint64(l.Success*float64(l.Requests)+0.5)
}

func persistRow(rounds []PersistRound) Row {
	var plain, persister []float64
	for _, r := range rounds {
		plain, persister = append(plain, r.Plain.RowsPerSec), append(persister, r.Persister.RowsPerSec)
	}
	q := Ratio(Median(persister), Median(plain))
	return Row{
		Measure:  fmt.Sprintf("persistence: draining a %s-order backlog", Thousands(float64(rounds[0].Plain.Rows))),
		Seckill:  "persister " + Thousands(Median(persister)) + " orders/s",
		Baseline: fmt.Sprintf("plain INSERT (%d rows/statement) %s rows/s", persist.InsertRows, Thousands(Median(plain))),
		Ratio:    times(q), Target: fmt.Sprintf("≥ %.1f× plain INSERT", targetPersist), Result: passFail(q >= targetPersist, ""),
	}
}

func connsRow(c ConnsResult) Row {
	w := c.Wrk
	return Row{
		Measure: fmt.Sprintf("%s concurrent keep-alive connections (GET %s)", Thousands(float64(c.Connections)), c.Path),
		Seckill: fmt.Sprintf("socket errors: connect %d, read %d, write %d, timeout %d; non-2xx %d; %s req/s, p99 %s",
			w.Connect, w.Read, w.Write, w.Timeout, w.Non2xx, Thousands(w.RPS), ms(w.P99ms)),
		Baseline: "—", Ratio: "—", Target: "0 errors",
		Result: passFail(w.SocketErrors() == 0 && w.Non2xx == 0 && w.Requests > 0, ""),
	}
}

func rssRow(r Resources) Row {
	rss := mib(r.PeakRSS) + " MiB"
	if r.PeakRSSAfterConns > 0 {
		rss += fmt.Sprintf(" (%s MiB after the runs that hold many connections)", mib(r.PeakRSSAfterConns))
	}
	return Row{Measure: "seckill peak RSS (VmHWM)", Seckill: rss, Baseline: "—", Ratio: "—", Target: "—", Result: "info"}
}

// AddOutcomes adds the counts of from to into.
func AddOutcomes(into, from map[string]int64) {
	for k, v := range from {
		into[k] += v
	}
}

// judge is the verdict of a throughput row: the target met, by a run whose
// answers were (nearly all) the ones it meant to measure.
func judge(met bool, expected, total int64, what string) string {
	share := Ratio(float64(expected), float64(total))
	switch {
	case total == 0:
		return passFail(false, "the server counted no purchases")
	case share < minShare:
		return passFail(false, "only "+percent(share)+"% "+what)
	case share < 1:
		return passFail(met, "") + " (" + percent(1-share) + "% not " + what + ")"
	}
	return passFail(met, "")
}

func passFail(ok bool, why string) string {
	switch {
	case ok:
		return "PASS"
	case why != "":
		return "FAIL (" + why + ")"
	}
	return "FAIL"
}

func times(q float64) string { return fmt.Sprintf("%.2f×", q) }

func ms(v float64) string {
	if v == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f ms", v)
}

func mib(b int64) string { return fmt.Sprintf("%.0f", float64(b)/(1<<20)) }

// cell escapes what would break a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// SoldOutAnswers counts the answers that said sold out, wherever decided.
func SoldOutAnswers(outcomes map[string]int64) int64 {
	var n int64
	for k, v := range outcomes {
		if soldOut(k) {
			n += v
		}
	}
	return n
}
