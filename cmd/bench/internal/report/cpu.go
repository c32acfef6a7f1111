package report

import (
	"fmt"
	"io"
)

// CPUSpent is the CPU seconds each part of the machine spent in one window.
// The purchase measure and the scale-out measure both count it, with the
// same meter, so their figures compare.
type CPUSpent struct {
	Servers float64 `json:"seckill_servers"` // the system under test: every seckill instance, or the floor
	Redis   float64 `json:"redis"`           // 0 when its process is not on this machine
	MySQL   float64 `json:"mysql"`           // likewise
	Wrk     float64 `json:"wrk"`
	Machine float64 `json:"machine"` // every process and the kernel, on every core
}

func per1000(cpu float64, n int64) float64 {
	if n == 0 {
		return 0
	}
	return cpu / (float64(n) / 1000)
}

// per1000 is c per 1,000 answers.
func (c CPUSpent) per1000(n int64) CPUSpent {
	return CPUSpent{Servers: per1000(c.Servers, n), Redis: per1000(c.Redis, n), MySQL: per1000(c.MySQL, n),
		Wrk: per1000(c.Wrk, n), Machine: per1000(c.Machine, n)}
}

// cpuSample is one run's CPU and the answers it is divided by.
type cpuSample struct {
	CPU     CPUSpent
	Answers int64
}

// medianSplit is the median over samples of each part's CPU seconds per
// 1,000 answers, and of what no named part accounts for (the kernel's
// network work outside the processes, the bench itself, anything else
// running). Each is a median of its own, so they need not add up.
func medianSplit(samples []cpuSample) (CPUSpent, float64) {
	var s, r, m, w, all, other []float64
	for _, x := range samples {
		p := x.CPU.per1000(x.Answers)
		s, r, m, w, all = append(s, p.Servers), append(r, p.Redis), append(m, p.MySQL), append(w, p.Wrk), append(all, p.Machine)
		other = append(other, p.Machine-p.Servers-p.Redis-p.MySQL-p.Wrk)
	}
	return CPUSpent{Servers: Median(s), Redis: Median(r), MySQL: Median(m), Wrk: Median(w), Machine: Median(all)}, Median(other)
}

// splitCells are a split's table cells, in the order of splitHeader.
func splitCells(c CPUSpent, other float64) []string {
	return []string{fmt.Sprintf("%.3f", c.Servers), fmt.Sprintf("%.3f", c.Redis), fmt.Sprintf("%.3f", c.MySQL),
		fmt.Sprintf("%.3f", c.Wrk), fmt.Sprintf("%.3f", other), fmt.Sprintf("%.3f", c.Machine)}
}

var splitHeader = []string{"Redis", "MariaDB", "wrk", "everything else", "machine-wide"}

// purchaseSamples are the purchase rounds' CPU, the floor's per purchase
// it answered, the server's per purchase it reserved.
func purchaseSamples(rounds []PurchaseRound, seckill bool) []cpuSample {
	out := make([]cpuSample, len(rounds))
	for i, r := range rounds {
		out[i] = cpuSample{r.FloorCPU, r.Floor.Requests}
		if seckill {
			out[i] = cpuSample{r.SeckillCPU, r.Outcomes["reserved"]}
		}
	}
	return out
}

// purchaseCPURow is where the machine's CPU went per purchase, the server
// against the floor. The ratio is machine-wide: on a machine the server
// shares with Redis and MariaDB, that is what a purchase costs.
func purchaseCPURow(rounds []PurchaseRound) Row {
	seckill, sOther := medianSplit(purchaseSamples(rounds, true))
	floor, fOther := medianSplit(purchaseSamples(rounds, false))
	split := func(name string, c CPUSpent, other float64) string {
		return fmt.Sprintf("%s %.3f, Redis %.3f, MariaDB %.3f, wrk %.3f, everything else %.3f, machine-wide %.3f s",
			name, c.Servers, c.Redis, c.MySQL, c.Wrk, other, c.Machine)
	}
	return Row{
		Measure: "CPU seconds per 1,000 purchases, by process (ratio: machine-wide)",
		Seckill: split("seckill", seckill, sOther) + "; the seckill process alone " +
			times(Ratio(seckill.Servers, floor.Servers)) + " the floor process",
		Baseline: split("floor: floor", floor, fOther),
		Ratio:    times(Ratio(seckill.Machine, floor.Machine)), Target: "—", Result: "info",
	}
}

// writePurchaseCPU says where the machine's CPU went in the purchase runs.
func writePurchaseCPU(w io.Writer, rounds []PurchaseRound) {
	if len(rounds) == 0 {
		return
	}
	fmt.Fprintf(w, "\nWhere the CPU went in the purchase runs (CPU seconds per 1,000 purchases, medians of the rounds):\n\n")
	seckill, sOther := medianSplit(purchaseSamples(rounds, true))
	floor, fOther := medianSplit(purchaseSamples(rounds, false))
	writeTable(w, append([]string{"system", "its process"}, splitHeader...), [][]string{
		append([]string{"floor"}, splitCells(floor, fOther)...),
		append([]string{"seckill"}, splitCells(seckill, sOther)...),
	})
}
