package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seckill/seckill/cmd/bench/internal/machine"
	"github.com/seckill/seckill/cmd/bench/internal/persist"
	"github.com/seckill/seckill/cmd/bench/internal/wrk"
)

// sample is a small run with one clear pass and one clear failure per kind.
func sample() Results {
	return Results{
		Machine: machine.Machine{CPU: "Test CPU", Cores: 2, Kernel: "6.1", Go: "go1.26", Redis: "7.0.15", MariaDB: "10.11", Wrk: "4.1.0", Date: "2026-11-22 12:00 UTC"},
		Settings: Settings{Rounds: 3, Threads: 2, Connections: 128, Duration: "8s", Shoppers: 360000,
			LatencyFor: "10s", PersistOrders: 100000, ManyConns: 10000, ManyConnsFor: "10s",
			DropDemand: []float64{0.01, 0.02, 0.05, 0.12, 0.30, 0.30, 0.12, 0.05, 0.02, 0.01},
			HeldPages:  1000, HeldFor: "5s", FollowShoppers: 2000, FollowSpread: "1s"},
		Purchase: []PurchaseRound{purchaseRound(1, 6000, 9500), purchaseRound(2, 5000, 9000), purchaseRound(3, 7000, 8000)},
		Drop: []PurchaseRound{
			{Round: 1, Floor: wrk.Result{RPS: 6000}, Seckill: wrk.Result{RPS: 9000}, Outcomes: map[string]int64{"reserved": 72000}},
			{Round: 2, Floor: wrk.Result{RPS: 6200}, Seckill: wrk.Result{RPS: 8500}, Outcomes: map[string]int64{"reserved": 67990, "rate_limited": 10}},
			{Round: 3, Floor: wrk.Result{RPS: 5800}, Seckill: wrk.Result{RPS: 7000}, Outcomes: map[string]int64{"reserved": 56000}},
		},
		SoldOut: []SoldOutRound{
			{Round: 1, Ceiling: wrk.Result{RPS: 16000}, Seckill: wrk.Result{RPS: 8000},
				Outcomes: map[string]int64{"gated_sold_out": 63990, "sold_out": 10}},
		},
		Latency: &LatencyResult{TargetRate: 4500, AchievedRate: 4499.7, Requests: 45000, Success: 1,
			P50ms: 0.9, P99ms: 4.2, Outcomes: map[string]int64{"reserved": 45000}},
		FloorLatency: &LatencyResult{TargetRate: 4500, AchievedRate: 4500, Requests: 45000, Success: 1, P50ms: 0.5, P99ms: 2.5},
		Persist: []PersistRound{{Round: 1, Plain: persist.Run{Rows: 100000, RowsPerSec: 50000, Seconds: 2, MySQLCPU: 2.5},
			Persister: persist.Run{Rows: 100000, RowsPerSec: 25000, Seconds: 4, MySQLCPU: 4},
			Events:    persist.Run{Rows: 100000, RowsPerSec: 20000, Seconds: 5, MySQLCPU: 7, Events: 100001}}},
		ManyConns: &ConnsResult{Connections: 10000, Path: "/api/v1/items/3", Timeout: "30s",
			Wrk: wrk.Result{Requests: 30000, RPS: 3000, Timeout: 2}},
		Resources: &Resources{PeakRSS: 50 << 20, PeakRSSAfterConns: 400 << 20},
		Pages:     samplePages(),
		ScaleOut: []ScaleOutRound{
			{Round: 1, One: scaleSide("reserved", 0.125, 7000), Two: scaleSide("reserved", 0.15, 3600, 3800)},
			{Round: 2, One: scaleSide("reserved", 0.125, 7200), Two: scaleSide("reserved", 0.15, 3500, 3500)},
			{Round: 3, One: scaleSide("reserved", 0.125, 6800), Two: scaleSide("reserved", 0.15, 3900, 3800)},
		},
		ScaleOutSoldOut: []ScaleOutRound{
			{Round: 1, One: scaleSide("marked_sold_out", 0.05, 36000), Two: scaleSide("marked_sold_out", 0.06, 15000, 15000)},
		},
	}
}

// purchaseRound is an 8 s round at the rates given, everything reserved,
// the floor spending 0.06 s of its process's CPU per 1,000 purchases (0.15 s
// machine-wide) and seckill 0.125 s (0.30 s).
func purchaseRound(round int, floor, seckill float64) PurchaseRound {
	nf, ns := floor*8, seckill*8
	return PurchaseRound{Round: round, Floor: wrk.Result{RPS: floor, Requests: int64(nf)},
		Seckill: wrk.Result{RPS: seckill, Requests: int64(ns)}, Outcomes: map[string]int64{"reserved": int64(ns)},
		FloorCPU:   CPUSpent{Servers: 0.06 * nf / 1000, Redis: 0.02 * nf / 1000, Wrk: 0.04 * nf / 1000, Machine: 0.15 * nf / 1000},
		SeckillCPU: CPUSpent{Servers: 0.125 * ns / 1000, Redis: 0.05 * ns / 1000, MySQL: 0.08 * ns / 1000, Wrk: 0.03 * ns / 1000, Machine: 0.3 * ns / 1000}}
}

// samplePages is a pages run: the refresh at 0.85× the ceiling, a stream
// costing 0.3 ms of server CPU per purchase followed against polling's 0.5.
func samplePages() *Pages {
	return &Pages{Path: "/api/v1/items/{id}", ItemBytes: 380, CeilingBytes: 370, ETag: `"abc"`, Revalidated: 304,
		Refresh: []RefreshRound{{Round: 1, Ceiling: wrk.Result{RPS: 20000}, Seckill: wrk.Result{RPS: 17000}, Revalidate: wrk.Result{RPS: 19000}}},
		HeldAlone: &HeldPages{Pages: 1000, Seconds: 5, SeckillCPU: 0.25,
			Statuses: map[string]int64{"item 304": 4950, "item 200": 50, "time 200": 500}},
		HeldDuring: &HeldPages{Pages: 1000, Seconds: 10, Statuses: map[string]int64{"item 200": 9000, "item 304": 1000, "time 200": 1000}},
		Follow: []FollowRound{{Round: 1,
			Poll: FollowRun{Shoppers: 2000, Confirmed: 2000, Requests: 6000, Seconds: 3, SeckillCPU: 1.2, HeldCPU: 0.2, P50ms: 800, P99ms: 1300,
				Statuses: map[string]int64{"purchase 202": 2000, "poll 200": 4000}},
			SSE: FollowRun{Shoppers: 2000, Confirmed: 2000, Requests: 4000, Seconds: 3, SeckillCPU: 0.8, HeldCPU: 0.2, P50ms: 400, P99ms: 900, PurchaseP50ms: 20, PurchaseP99ms: 50,
				Statuses: map[string]int64{"purchase 202": 2000, "stream 200": 2000}},
		}},
	}
}

// scaleSide is one side of a scale-out round: an 8 s wrk run per instance
// at rps, every answer outcome, the servers spending serversPer1000 CPU
// seconds per 1,000 answers, Redis 0.02 s and MariaDB 0.04 s, the machine
// twice the servers', one Redis round trip per ten answers.
func scaleSide(outcome string, serversPer1000 float64, rps ...float64) ScaleCase {
	c := ScaleCase{Outcomes: map[string]int64{}, MachineBusy: 0.99}
	for _, r := range rps {
		c.Wrk = append(c.Wrk, wrk.Result{RPS: r, Requests: int64(r * 8)})
		c.PerInstance = append(c.PerInstance, map[string]int64{outcome: int64(r * 8)})
		c.RPS += r
		c.Outcomes[outcome] += int64(r * 8)
	}
	n := float64(c.Outcomes[outcome])
	c.RoundTrips = int64(n / 10)
	c.CPU = CPUSpent{Servers: serversPer1000 * n / 1000, Redis: 0.02 * n / 1000, MySQL: 0.04 * n / 1000,
		Machine: 2 * serversPer1000 * n / 1000}
	return c
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	rows := Summarize(sample())
	want := []struct{ ratio, result string }{
		{"1.50×", "PASS"},                               // median 9,000 / 6,000
		{"1.42×", "PASS (0.01% not reserved)"},          // drop: 8,500 / 6,000
		{"0.50×", "FAIL"},                               // 8,000 / 16,000
		{"1.68× (p99)", "PASS (p50 PASS, p99 PASS)"},    // p50 0.9 ms, p99 4.2 ms against the floor's 2.5
		{"0.50×", "FAIL"},                               // 25,000 / 50,000
		{"1.60×", "PASS"},                               // MariaDB: purchases 0.04 ms / plain 0.025 ms
		{"0.80× (rows/s), 1.75× (MariaDB CPU)", "info"}, // with events: 20,000 / 25,000; 0.07 ms / 0.04 ms
		{"—", "FAIL"},                                   // two timeouts
		{"—", "info"},                                   // RSS
		{"2.00×", "info"},                               // CPU per purchase machine-wide: 0.300 s / 0.150 s
		{"0.85×", "PASS"},                               // refresh: 17,000 / 20,000
		{"0.95×", "info"},                               // with If-None-Match: 19,000 / 20,000
		{"0.60× (CPU)", "info"},                         // follow: 0.3 ms / 0.5 ms
		{"—", "info"},                                   // held pages
		{"1.06×", "info"},                               // scale-out: median 7,400 / 7,000
		{"1.20×", "info"},                               // CPU: 0.150 s / 0.125 s
		{"0.83×", "info"},                               // sold out: 30,000 / 36,000
	}
	if len(rows) != len(want) {
		t.Fatalf("got %d rows, want %d: %+v", len(rows), len(want), rows)
	}
	for i, w := range want {
		if rows[i].Ratio != w.ratio || rows[i].Result != w.result {
			t.Errorf("row %d (%s): ratio %q result %q, want %q %q", i, rows[i].Measure, rows[i].Ratio, rows[i].Result, w.ratio, w.result)
		}
	}
	if !strings.Contains(rows[2].Seckill, "gated_sold_out 99.98%, sold_out 0.02%") {
		t.Errorf("sold-out row does not show the mix of answers: %q", rows[2].Seckill)
	}
	if want := "a drop of 10 variants, 60% of shoppers on the middle two"; !strings.Contains(rows[1].Measure, want) {
		t.Errorf("drop row measure %q lacks %q", rows[1].Measure, want)
	}
	if want := "8,500 req/s (reserved 99.99%, rate_limited 0.01%); 0.94× the one-variant row"; rows[1].Seckill != want {
		t.Errorf("drop row = %q, want %q", rows[1].Seckill, want)
	}
}

func TestSummarizeJudgesTheAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		outcomes map[string]int64
		want     string
	}{
		{"all reserved", map[string]int64{"reserved": 1000}, "PASS"},
		{"a few others", map[string]int64{"reserved": 9995, "unavailable": 5}, "PASS (0.05% not reserved)"},
		{"mostly refused", map[string]int64{"reserved": 10, "invalid_purchase_token": 990}, "FAIL (only 1% reserved)"},
		{"nothing counted", map[string]int64{}, "FAIL (the server counted no purchases)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			row := purchaseRow([]PurchaseRound{{Floor: wrk.Result{RPS: 1000}, Seckill: wrk.Result{RPS: 2000}, Outcomes: tt.outcomes}})
			if row.Result != tt.want {
				t.Errorf("result = %q, want %q", row.Result, tt.want)
			}
		})
	}
}

func TestWriteReport(t *testing.T) {
	t.Parallel()
	res := sample()
	res.Summary, res.Notes = Summarize(res), Notes(res)
	var b strings.Builder
	WriteReport(&b, res)
	out := b.String()
	for _, want := range []string{
		"Measured 2026-11-22 12:00 UTC on Test CPU, 2 cores",
		"Settings: 3 rounds; wrk -t2 -c128 -d8s with 360,000 shoppers minted; paced run 10s; 100,000-order backlog; 10,000 connections for 10s. 1,000 held pages; 2,000 shoppers per follow run.",
		"- Pages held, follow: 1,000 held pages (goroutines in the bench, each with its own keep-alive connection, as browsers have) ask for their sale once a second",
		"they ran alone for 5s, after a second to connect, to measure their server CPU, then on through the follow runs, on each run's sale. In each follow run 2,000 shoppers (their starts spread over 1s)",
		"| measure | seckill | baseline | ratio | target | result |\n|---|---|---|---|---|---|\n",
		"| 9,000 req/s (reserved 100%) | floor 6,000 req/s | 1.50× | ≥ 1.0× floor | PASS |",
		"| 2 | 5,000 | 9,000 | 1.80× | reserved 100% |",
		"Purchase throughput, a drop of 10 variants with skewed demand (wrk, req/s):\n\n| round | floor | seckill |",
		"| 3 | 5,800 | 7,000 | 1.21× | reserved 100% |",
		"- The drop row: one sale of 10 variants, each shopper asking for one of them (in the sale's order: 1%, 2%, 5%, 12%, 30%, 30%, 12%, 5%, 2%, 1% of the shoppers;",
		"| round | plain INSERT | persister | ratio | persister with events | with / without events | time (plain / persister / with events) | MariaDB CPU ms per row (plain / persister / with events) |",
		"| 1 | 50,000 | 25,000 | 0.50× | 20,000 | 0.80× | 2.00 s / 4.00 s / 5.00 s | 0.0250 / 0.0400 / 0.0700 |",
		"| with events 20,000 orders/s, MariaDB CPU 0.0700 ms per order | without events 25,000 orders/s, 0.0400 ms per order | 0.80× (rows/s), 1.75× (MariaDB CPU) | — | info |",
		"The drain with events is the same drain with one webhook endpoint configured",
		"| purchase run (scale-out, one instance) 0.0400 ms; backlog drain 0.0400 ms | plain INSERT 0.0250 ms per row | 1.60× | ≤ 2× plain INSERT per row | PASS |",
		"socket errors: connect 0, read 0, write 0, timeout 2",
		"| floor at the same rate: p50 0.50 ms, p99 2.50 ms (0 errors) | 1.68× (p99) | p50 ≤ 1 ms, p99 ≤ 2× the floor's (5.00 ms) | PASS (p50 PASS, p99 PASS) |",
		"| seckill 0.125, Redis 0.050, MariaDB 0.080, wrk 0.030, everything else 0.015, machine-wide 0.300 s; the seckill process alone 2.08× the floor process | floor: floor 0.060, Redis 0.020, MariaDB 0.000, wrk 0.040, everything else 0.030, machine-wide 0.150 s | 2.00× |",
		"| floor | 0.060 | 0.020 | 0.000 | 0.040 | 0.030 | 0.150 |\n| seckill | 0.125 | 0.050 | 0.080 | 0.030 | 0.015 | 0.300 |",
		"| 17,000 req/s (380 B bodies) | ceiling 20,000 req/s (constant 370 B body) | 0.85× | ≥ 0.8× ceiling | PASS |",
		"| 19,000 req/s (answered 304) | ceiling 20,000 req/s (200, full body) | 0.95× | — | info |",
		"| SSE: 2.00 requests, 0.300 ms seckill CPU (0.400 ms with the held pages' share) per purchase followed; confirmed after p50 400 ms, p99 900 ms; 2,000 of 2,000 confirmed | polling: 3.00 requests, 0.500 ms",
		"alone: 1,100 req/s (item 304 90%, time 200 9%, item 200 1%), 50.0 µs seckill CPU per page per second; during the follow runs: 1,100 req/s",
		"| 1 | 20,000 | 17,000 | 0.85× | 19,000 | 0 |",
		"| 1 | SSE | 2.00 | 0.300 ms | 0.400 ms | 400 / 900 ms | 20 / 50 ms | 2,000 of 2,000 | 3.0 s | purchase 202 2,000, stream 200 2,000 |",
		"Held pages alone: 1,000 pages for 5.0 s, 1,100 req/s; answers item 304 4,950, time 200 500, item 200 50.",
		"- Pages held, refresh: wrk -t2 -c128 -d8s sends GET /api/v1/items/{id}",
		"The floor at the same rate: 45,000 requests",
		"- Every request comes from 127.0.0.1",
		"| two instances 7,400 req/s (both sides: reserved 100%) | one instance 7,000 req/s | 1.06× | — | info |",
		"| two: seckill 0.150 s, machine-wide 0.300 s | one: seckill 0.125 s, machine-wide 0.250 s | 1.20× |",
		"| 1 | 7,000 | 7,400 | 3,600 + 3,800 | 1.06× | reserved 100% / reserved 100% | 99% / 99% | 0.0 s / 0.0 s | 0 / 0 |",
		"| 1 | 36,000 | 30,000 | 15,000 + 15,000 | 0.83× | marked_sold_out 100% / marked_sold_out 100% | 99% / 99% |\n",
		"| purchases | two | 0.150 | 0.020 | 0.040 | 0.000 | 0.090 | 0.300 | 100 |",
		"| once sold out | one | 0.050 | 0.020 | 0.040 | 0.000 | -0.010 | 0.100 | 100 |",
		"- Scale-out: the second instance is another `seckill serve`",
		"one wrk -t2 -c128 -d8s at one instance",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	for i, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(line, "|") && strings.Count(line, "|")-strings.Count(line, `\|`) < 2 {
			t.Errorf("line %d is a broken table row: %q", i, line)
		}
	}
}

func TestTableCellsEscapePipes(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	writeTable(&b, []string{"a", "b"}, [][]string{{"x|y", "z"}})
	if want := "| x\\|y | z |\n"; !strings.HasSuffix(b.String(), want) {
		t.Errorf("table = %q, want it to end %q", b.String(), want)
	}
}

func TestWriteDocsAndJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	res := sample()
	res.Summary = Summarize(res)
	docs := filepath.Join(dir, "benchmarks.md")
	if err := WriteDocs(docs, res); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(docs)
	if !strings.HasPrefix(string(b), "# Benchmarks\n") || !strings.Contains(string(b), "## Latest run\n\nMeasured ") {
		t.Errorf("docs page:\n%s", b)
	}
	path, err := WriteJSON(filepath.Join(dir, "results"), res)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), `"rows_per_sec": 25000`) ||
		!strings.Contains(string(b), `"scale_out_rounds"`) ||
		!strings.Contains(string(b), `"persister_with_events"`) || !strings.Contains(string(b), `"outbox_rows": 100001`) || !strings.Contains(string(b), `"seckill_servers": 7,`) {
		t.Errorf("%s lacks the raw figures:\n%s", path, b)
	}
}

func TestNotesSayWhenTheMachineWasBusy(t *testing.T) {
	t.Parallel()
	res := sample()
	res.Machine.LoadStart = "0.30 0.20 0.10"
	if n := strings.Join(Notes(res), "\n"); strings.Contains(n, "busy with other work") {
		t.Errorf("a quiet machine called busy:\n%s", n)
	}
	res.Machine.LoadStart = "1.70 1.20 0.60"
	if n := strings.Join(Notes(res), "\n"); !strings.Contains(n, "busy with other work when the run began (load average 1.70 1.20 0.60 on 2 cores)") {
		t.Errorf("notes do not say the machine was busy:\n%s", n)
	}
}

// The MariaDB CPU row judges the purchase run when the scale-out measure
// ran, the drain otherwise, and is left out when MariaDB was not metered.
func TestMySQLCPURow(t *testing.T) {
	t.Parallel()
	drainOnly := sample()
	drainOnly.ScaleOut = nil
	unmetered := sample()
	unmetered.Persist[0].Plain.MySQLCPU = 0
	tests := []struct {
		name   string
		res    Results
		ok     bool
		ratio  string
		result string
	}{
		{"purchase run", sample(), true, "1.60×", "PASS"},
		{"drain only", drainOnly, true, "1.60×", "PASS"},
		{"not metered", unmetered, false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row, ok := mysqlCPURow(tt.res)
			if ok != tt.ok || row.Ratio != tt.ratio || row.Result != tt.result {
				t.Errorf("row = %+v, %v; want ratio %q result %q, %v", row, ok, tt.ratio, tt.result, tt.ok)
			}
		})
	}
	drainOnly.Persist[0].Persister.MySQLCPU = 6 // 0.06 ms: 2.4× the plain 0.025 ms
	if row, _ := mysqlCPURow(drainOnly); row.Ratio != "2.40×" || row.Result != "FAIL" {
		t.Errorf("over the target: %+v", row)
	}
}

// The events row sets the medians of the drain with events against those of
// the drain without, over the same rounds, and leaves out the CPU when
// MariaDB was not metered.
func TestEventsRow(t *testing.T) {
	t.Parallel()
	round := func(without, with, withoutCPU, withCPU float64) PersistRound {
		return PersistRound{Persister: persist.Run{Rows: 1000, RowsPerSec: without, MySQLCPU: withoutCPU},
			Events: persist.Run{Rows: 1000, RowsPerSec: with, MySQLCPU: withCPU, Events: 1001}}
	}
	rounds := []PersistRound{round(40000, 30000, 0.02, 0.03), round(50000, 36000, 0.015, 0.03), round(44000, 33000, 0.016, 0.028)}
	row := eventsRow(rounds) // medians: 44,000 and 33,000 orders/s; 0.016 and 0.030 ms
	if want := "0.75× (rows/s), 1.88× (MariaDB CPU)"; row.Ratio != want || row.Result != "info" {
		t.Errorf("ratio %q result %q, want %q info", row.Ratio, row.Result, want)
	}
	if want := "with events 33,000 orders/s, MariaDB CPU 0.0300 ms per order"; row.Seckill != want {
		t.Errorf("seckill = %q, want %q", row.Seckill, want)
	}
	if want := "without events 44,000 orders/s, 0.0160 ms per order"; row.Baseline != want {
		t.Errorf("baseline = %q, want %q", row.Baseline, want)
	}
	rounds[1].Events.MySQLCPU = 0
	if row := eventsRow(rounds); row.Ratio != "0.75× (rows/s)" || strings.Contains(row.Seckill+row.Baseline, "CPU") ||
		strings.Contains(row.Baseline, "ms") {
		t.Errorf("unmetered: %+v", row)
	}
}
