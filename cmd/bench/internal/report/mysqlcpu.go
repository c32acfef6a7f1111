package report

import "fmt"

// mysqlCPURow sets MariaDB's CPU per order persisted against its CPU per row
// of the plain INSERT. The purchase run (the scale-out measure's one
// instance) is what the target is about, when it ran: there batches are as
// big as the load makes them, while a drained backlog always fills them.
// No row when MariaDB's CPU could not be read (it runs elsewhere).
func mysqlCPURow(res Results) (Row, bool) {
	var plain, drain []float64
	for _, r := range res.Persist {
		if r.Plain.MySQLCPU <= 0 || r.Persister.MySQLCPU <= 0 {
			return Row{}, false
		}
		plain, drain = append(plain, r.Plain.MySQLmsPerRow()), append(drain, r.Persister.MySQLmsPerRow())
	}
	base := Median(plain)
	seckill := fmt.Sprintf("backlog drain %.4f ms", Median(drain))
	q := Ratio(Median(drain), base)
	if len(res.ScaleOut) > 0 {
		one, _ := medianPer1000(res.ScaleOut, false) // seconds per 1,000 = ms per order
		seckill = fmt.Sprintf("purchase run (scale-out, one instance) %.4f ms; %s", one.MySQL, seckill)
		q = Ratio(one.MySQL, base)
	}
	return Row{
		Measure:  "MariaDB CPU per order persisted",
		Seckill:  seckill,
		Baseline: fmt.Sprintf("plain INSERT %.4f ms per row", base),
		Ratio:    times(q), Target: fmt.Sprintf("≤ %.0f× plain INSERT per row", targetMySQLCPU),
		Result: passFail(q > 0 && q <= targetMySQLCPU, ""),
	}, true
}
