package report

import "fmt"

// eventsRow sets the drain with events (the outbox on, one endpoint)
// against the drain without, from the same rounds: what announcing every
// order in its own transaction costs in throughput and in MariaDB's CPU
// per order. No target: it informs. The CPU half is left out when MariaDB
// was not metered.
func eventsRow(rounds []PersistRound) Row {
	var with, without, withCPU, withoutCPU []float64
	metered := true
	for _, r := range rounds {
		with, without = append(with, r.Events.RowsPerSec), append(without, r.Persister.RowsPerSec)
		withCPU, withoutCPU = append(withCPU, r.Events.MySQLmsPerRow()), append(withoutCPU, r.Persister.MySQLmsPerRow())
		metered = metered && r.Events.MySQLCPU > 0 && r.Persister.MySQLCPU > 0
	}
	row := Row{
		Measure:  "persistence with events: the same backlog drained, each order announced (an order.confirmed outbox row in its transaction, one endpoint)",
		Seckill:  "with events " + Thousands(Median(with)) + " orders/s",
		Baseline: "without events " + Thousands(Median(without)) + " orders/s",
		Ratio:    times(Ratio(Median(with), Median(without))) + " (rows/s)",
		Target:   "—", Result: "info",
	}
	if metered {
		row.Seckill += fmt.Sprintf(", MariaDB CPU %.4f ms per order", Median(withCPU))
		row.Baseline += fmt.Sprintf(", %.4f ms per order", Median(withoutCPU))
		row.Ratio += ", " + times(Ratio(Median(withCPU), Median(withoutCPU))) + " (MariaDB CPU)"
	}
	return row
}
