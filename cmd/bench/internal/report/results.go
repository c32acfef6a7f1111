// Package report turns one benchmark run's figures into what it shows:
// the raw results (Results, written as JSON), the summary table of medians,
// ratios and verdicts against the targets (Summarize), and the Markdown
// report and docs page (WriteReport, WriteDocs), with the notes on how the
// figures were taken.
package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/seckill/seckill/cmd/bench/internal/machine"
	"github.com/seckill/seckill/cmd/bench/internal/persist"
	"github.com/seckill/seckill/cmd/bench/internal/wrk"
)

// Results is everything one run measured, written as JSON beside the
// report so a figure in the table can be traced to its runs.
type Results struct {
	Started  time.Time       `json:"started"`
	Finished time.Time       `json:"finished"`
	Machine  machine.Machine `json:"machine"`
	Settings Settings        `json:"settings"`
	Purchase []PurchaseRound `json:"purchase_rounds,omitempty"`
	// Drop is measure 1 on a sale of several variants with skewed demand
	// (Settings.DropDemand), each round with a floor run of its own.
	Drop    []PurchaseRound `json:"drop_rounds,omitempty"`
	SoldOut []SoldOutRound  `json:"sold_out_rounds,omitempty"`
	Latency *LatencyResult  `json:"latency,omitempty"`
	// FloorLatency is the floor paced at the same rate: what the generator
	// and the machine allow, for comparison.
	FloorLatency *LatencyResult `json:"floor_latency,omitempty"`
	ManyConns    *ConnsResult   `json:"many_connections,omitempty"`
	Persist      []PersistRound `json:"persist_rounds,omitempty"`
	// ScaleOut and ScaleOutSoldOut are measure 7: one seckill instance
	// against two, on the purchase and the sold-out workloads.
	ScaleOut        []ScaleOutRound `json:"scale_out_rounds,omitempty"`
	ScaleOutSoldOut []ScaleOutRound `json:"scale_out_sold_out_rounds,omitempty"`
	Resources       *Resources      `json:"resources,omitempty"`
	Pages           *Pages          `json:"pages,omitempty"` // measure 8
	PoW             *PowResult      `json:"proof_of_work,omitempty"`
	Summary         []Row           `json:"summary"`
	Notes           []string        `json:"notes"`
}

// Settings are the knobs the figures depend on.
type Settings struct {
	Rounds        int      `json:"rounds"`
	Duration      string   `json:"wrk_duration"`
	Threads       int      `json:"wrk_threads"`
	Connections   int      `json:"wrk_connections"`
	Shoppers      int      `json:"shoppers_minted"`
	LatencyFor    string   `json:"latency_duration"`
	PersistOrders int      `json:"persist_orders"`
	ManyConns     int      `json:"many_connections"`
	ManyConnsFor  string   `json:"many_connections_duration"`
	SeckillEnv    []string `json:"seckill_env_changed"`
	// DropDemand is the share of the drop's shoppers asking for each of its
	// variants, in the sale's order.
	DropDemand []float64 `json:"drop_demand,omitempty"`
	// The pages measure's population: held pages, and shoppers per follow
	// run, whose starts are spread over FollowSpread.
	HeldPages      int    `json:"held_pages,omitempty"`
	HeldFor        string `json:"held_pages_alone_duration,omitempty"`
	FollowShoppers int    `json:"follow_shoppers,omitempty"`
	FollowSpread   string `json:"follow_spread,omitempty"`
}

// PurchaseRound is one round of measure 1, or of the drop: floor and
// seckill, back to back.
type PurchaseRound struct {
	Round   int        `json:"round"`
	Floor   wrk.Result `json:"floor"`
	Seckill wrk.Result `json:"seckill"`
	// FloorCPU and SeckillCPU are what each part of the machine spent in
	// the side's run (Servers: the floor process, or the seckill process);
	// the server's window runs until the run's orders were in MySQL.
	FloorCPU     CPUSpent         `json:"floor_cpu_seconds"`
	SeckillCPU   CPUSpent         `json:"seckill_cpu_seconds"`
	Outcomes     map[string]int64 `json:"seckill_outcomes"`
	DrainSeconds float64          `json:"drain_seconds"` // backlog left when wrk stopped
}

// SoldOutRound is one round of measure 2: ceiling and seckill.
type SoldOutRound struct {
	Round    int              `json:"round"`
	Ceiling  wrk.Result       `json:"ceiling"`
	Seckill  wrk.Result       `json:"seckill"`
	Outcomes map[string]int64 `json:"seckill_outcomes"`
	Reused   bool             `json:"shoppers_reused"` // the storm outran the shopper list and went round again
}

// ScaleOutRound is one round of measure 7: the same workload against one
// instance and against two sharing the database and the Redis prefix.
type ScaleOutRound struct {
	Round int       `json:"round"`
	One   ScaleCase `json:"one_instance"`
	Two   ScaleCase `json:"two_instances"`
}

// ScaleCase is one side of a scale-out round: one wrk per instance, all at
// once, with the configured threads and connections split between them.
type ScaleCase struct {
	RPS          float64            `json:"rps"` // the wrk processes' requests per second, summed
	Wrk          []wrk.Result       `json:"wrk"` // one per instance
	Outcomes     map[string]int64   `json:"seckill_outcomes"`
	PerInstance  []map[string]int64 `json:"seckill_outcomes_per_instance"`
	CPU          CPUSpent           `json:"cpu_seconds"`       // from the start of the run until its orders were in MySQL
	MachineBusy  float64            `json:"machine_busy"`      // share of all cores busy while wrk ran
	RoundTrips   int64              `json:"redis_round_trips"` // coalesced, every instance and operation
	DrainSeconds float64            `json:"drain_seconds"`
	// PersistTx and PersistOrders: the persisters' transactions in the run
	// and the orders they inserted, every instance.
	PersistTx     int64 `json:"persist_transactions"`
	PersistOrders int64 `json:"persist_orders"`
	Reused        bool  `json:"shoppers_reused,omitempty"` // sold out only
}

// LatencyResult is one paced (open-loop) purchase run.
type LatencyResult struct {
	TargetRate   float64          `json:"target_rate"`
	Seconds      float64          `json:"seconds"`
	Requests     uint64           `json:"requests"`
	AchievedRate float64          `json:"achieved_rate"`
	P50ms        float64          `json:"p50_ms"`
	P95ms        float64          `json:"p95_ms"`
	P99ms        float64          `json:"p99_ms"`
	Maxms        float64          `json:"max_ms"`
	Success      float64          `json:"success_ratio"`
	StatusCodes  map[string]int   `json:"status_codes"`
	Errors       []string         `json:"errors,omitempty"`
	Outcomes     map[string]int64 `json:"outcomes"` // from the server's metrics
	BusyBefore   float64          `json:"machine_busy_before"`
}

// PersistRound is one round of measure 4.
type PersistRound struct {
	Round     int         `json:"round"`
	Plain     persist.Run `json:"plain_insert"`
	Persister persist.Run `json:"persister"`
	// Events is the same drain with the outbox on (one endpoint): every
	// order also announced by an order.confirmed row in its transaction.
	Events persist.Run `json:"persister_with_events"`
}

// ConnsResult is measure 6.
type ConnsResult struct {
	Connections int        `json:"connections"`
	Path        string     `json:"path"`
	Timeout     string     `json:"wrk_timeout"` // wrk --timeout: that many connections queue for seconds
	Wrk         wrk.Result `json:"wrk"`
}

// Resources is measure 5: the server's peak memory. Its CPU per purchase
// is in the purchase rounds (PurchaseCPU).
type Resources struct {
	PeakRSS           int64 `json:"peak_rss_bytes"`             // after throughput and latency runs
	PeakRSSAfterConns int64 `json:"peak_rss_after_conns_bytes"` // after the pages and many-connections runs too
}

// WriteJSON writes res to dir/bench-<UTC start>.json and returns the path.
func WriteJSON(dir string, res Results) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("write results: %w", err)
	}
	path := filepath.Join(dir, "bench-"+res.Started.UTC().Format("20060102T150405Z")+".json")
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return "", fmt.Errorf("write results: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("write results: %w", err)
	}
	return path, nil
}
