package runner

import (
	"os"
	"testing"

	"github.com/seckill/seckill/cmd/bench/internal/wrk"
)

func TestParseMetrics(t *testing.T) {
	t.Parallel()
	scrape, err := os.ReadFile("testdata/metrics.txt") // a real one
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ParseMetrics(string(scrape))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Outcomes["reserved"] != 1 || sc.Outcomes["marked_sold_out"] != 3 || len(sc.Outcomes) != 2 {
		t.Errorf("outcomes = %v, want reserved 1 and marked_sold_out 3", sc.Outcomes)
	}
	if sc.Pending != 0 || sc.RoundTrips != 12 {
		t.Errorf("pending = %v, round trips = %v; want 0 and 12 (11 ratelimit, 1 reserve)", sc.Pending, sc.RoundTrips)
	}
	if sc.PersistTx != 2 || sc.PersistOrders != 151 {
		t.Errorf("persist batches = %v transactions, %v orders; want 2 and 151", sc.PersistTx, sc.PersistOrders)
	}
	if _, err := ParseMetrics("# nothing here\n"); err == nil {
		t.Error("ParseMetrics without the backlog gauge: want an error")
	}
}

func TestScrapeSince(t *testing.T) {
	t.Parallel()
	before := Scrape{Outcomes: map[string]float64{"reserved": 10, "sold_out": 4}}
	after := Scrape{Outcomes: map[string]float64{"reserved": 1.5e+06, "sold_out": 4, "rate_limited": 2}}
	got := after.Since(before)
	want := map[string]int64{"reserved": 1499990, "rate_limited": 2}
	if len(got) != len(want) || got["reserved"] != want["reserved"] || got["rate_limited"] != want["rate_limited"] {
		t.Errorf("Since = %v, want %v", got, want)
	}
}

// A round's 503s (replication_timeout answers quickly and sells nothing)
// are not purchases: the replica measure rates only the 2xx answers.
func TestReplicaRateCountsOnly2xx(t *testing.T) {
	s := replicaSample{w: wrk.Result{Requests: 1000, Non2xx: 600, Seconds: 2, RPS: 500}}
	if got := s.rps(); got != 200 {
		t.Errorf("rps of 400 × 2xx in 2 s = %.0f, want 200", got)
	}
}
