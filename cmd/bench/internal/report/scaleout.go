package report

import (
	"fmt"
	"io"
	"strings"
)

// scaleRows are measure 7's summary rows. There is no target: the issue
// asks what a second instance gives on this machine, so the rows are
// "info" unless the answers were not the ones the workload means.
func scaleRows(res Results) []Row {
	var rows []Row
	if len(res.ScaleOut) > 0 {
		rows = append(rows, scaleRow("purchases, sale not selling out", res.ScaleOut, "reserved"),
			scaleCPURow(res.ScaleOut))
	}
	if len(res.ScaleOutSoldOut) > 0 {
		rows = append(rows, scaleRow("answers once sold out", res.ScaleOutSoldOut, "sold out"))
	}
	return rows
}

func scaleRow(what string, rounds []ScaleOutRound, want string) Row {
	var one, two []float64
	all := map[string]int64{}
	for _, r := range rounds {
		one, two = append(one, r.One.RPS), append(two, r.Two.RPS)
		AddOutcomes(all, r.One.Outcomes)
		AddOutcomes(all, r.Two.Outcomes)
	}
	expected := all["reserved"]
	if want == "sold out" {
		expected = SoldOutAnswers(all)
	}
	verdict := judge(true, expected, SumOutcomes(all), want)
	if rest, ok := strings.CutPrefix(verdict, "PASS"); ok {
		verdict = "info" + rest
	}
	return Row{
		Measure:  "scale-out, " + what + ": two seckill instances vs one (same database and Redis prefix)",
		Seckill:  fmt.Sprintf("two instances %s req/s (both sides: %s)", Thousands(Median(two)), Mix(all)),
		Baseline: "one instance " + Thousands(Median(one)) + " req/s",
		Ratio:    times(Ratio(Median(two), Median(one))), Target: "—", Result: verdict,
	}
}

func scaleCPURow(rounds []ScaleOutRound) Row {
	one, _ := medianPer1000(rounds, false)
	two, _ := medianPer1000(rounds, true)
	cpu := func(c CPUSpent) string {
		return fmt.Sprintf("seckill %.3f s, machine-wide %.3f s", c.Servers, c.Machine)
	}
	return Row{
		Measure: "scale-out: CPU seconds per 1,000 purchases, two instances vs one (ratio: seckill processes)",
		Seckill: "two: " + cpu(two), Baseline: "one: " + cpu(one),
		Ratio: times(Ratio(two.Servers, one.Servers)), Target: "—", Result: "info",
	}
}

// medianPer1000 is medianSplit of one side of the rounds, per answer.
func medianPer1000(rounds []ScaleOutRound, two bool) (CPUSpent, float64) {
	samples := make([]cpuSample, len(rounds))
	for i, round := range rounds {
		c := round.side(two)
		samples[i] = cpuSample{c.CPU, SumOutcomes(c.Outcomes)}
	}
	return medianSplit(samples)
}

// medianTrips is the median over rounds of the servers' coalesced Redis
// round trips per 1,000 answers.
func medianTrips(rounds []ScaleOutRound, two bool) float64 {
	var trips []float64
	for _, round := range rounds {
		c := round.side(two)
		trips = append(trips, per1000(float64(c.RoundTrips), SumOutcomes(c.Outcomes)))
	}
	return Median(trips)
}

// perTx is the mean orders inserted per persister transaction.
func (c ScaleCase) perTx() float64 { return Ratio(float64(c.PersistOrders), float64(c.PersistTx)) }

func (r ScaleOutRound) side(two bool) ScaleCase {
	if two {
		return r.Two
	}
	return r.One
}

// PerInstance is how the two-instance side's throughput split.
func PerInstance(c ScaleCase) string {
	parts := make([]string, len(c.Wrk))
	for i, w := range c.Wrk {
		parts[i] = Thousands(w.RPS)
	}
	return strings.Join(parts, " + ")
}

func writeScaleRuns(w io.Writer, title string, rounds []ScaleOutRound, drains bool) {
	header := []string{"round", "one instance", "two instances", "per instance", "ratio",
		"outcomes one / two (metrics)", "machine busy one / two"}
	if drains {
		header = append(header, "backlog drained after one / two", "orders per persister transaction one / two")
	}
	writeRuns(w, title+" (wrk, req/s; two instances: one wrk per instance at once, summed)", header, rounds,
		func(r ScaleOutRound) []string {
			row := []string{fmt.Sprint(r.Round), Thousands(r.One.RPS), Thousands(r.Two.RPS), PerInstance(r.Two),
				times(Ratio(r.Two.RPS, r.One.RPS)), scaleMix(r.One) + " / " + scaleMix(r.Two),
				percent(r.One.MachineBusy) + "% / " + percent(r.Two.MachineBusy) + "%"}
			if drains {
				row = append(row, fmt.Sprintf("%.1f s / %.1f s", r.One.DrainSeconds, r.Two.DrainSeconds),
					fmt.Sprintf("%.0f / %.0f", r.One.perTx(), r.Two.perTx()))
			}
			return row
		})
}

func scaleMix(c ScaleCase) string {
	if c.Reused {
		return Mix(c.Outcomes) + " (shopper list went round again)"
	}
	return Mix(c.Outcomes)
}

// writeScaleCPU says where the machine's CPU went in the scale-out runs.
func writeScaleCPU(w io.Writer, res Results) {
	if len(res.ScaleOut)+len(res.ScaleOutSoldOut) == 0 {
		return
	}
	fmt.Fprintf(w, "\nWhere the CPU went in the scale-out runs (CPU seconds per 1,000 answers, medians of the rounds):\n\n")
	var rows [][]string
	for _, load := range []struct {
		name   string
		rounds []ScaleOutRound
	}{{"purchases", res.ScaleOut}, {"once sold out", res.ScaleOutSoldOut}} {
		for _, two := range []bool{false, true} {
			if len(load.rounds) == 0 {
				continue
			}
			c, other := medianPer1000(load.rounds, two)
			row := append([]string{load.name, map[bool]string{false: "one", true: "two"}[two]}, splitCells(c, other)...)
			rows = append(rows, append(row, Thousands(medianTrips(load.rounds, two))))
		}
	}
	header := append(append([]string{"workload", "instances", "seckill"}, splitHeader...), "Redis round trips per 1,000")
	writeTable(w, header, rows)
}

// scaleNote says how measure 7 was taken.
func scaleNote(res Results) []string {
	if len(res.ScaleOut)+len(res.ScaleOutSoldOut) == 0 {
		return nil
	}
	s := res.Settings
	return []string{fmt.Sprintf("Scale-out: the second instance is another `seckill serve` with the same settings on another port, "+
		"sharing the MySQL database and the Redis prefix; it is started for its case and stopped after it, so the one-instance "+
		"case has no idle peer persisting its orders. Each case gets a fresh sale and the same wrk load: one wrk -t%d -c%d -d%s at "+
		"one instance, or, at two, one wrk per instance at the same time with half the threads and connections each, reading "+
		"disjoint halves of the shopper files (wrk has no multi-host mode); their requests per second are summed. "+
		"CPU counts every seckill process, Redis and MariaDB (from /proc, when they run on this machine), wrk, and all cores "+
		"(/proc/stat), from the start of a run until its orders were in MySQL; machine busy is the share of all cores busy while wrk ran.",
		s.Threads, s.Connections, s.Duration)}
}
