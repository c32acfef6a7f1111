package report

import (
	"strings"
	"testing"

	"github.com/seckill/seckill/cmd/bench/internal/wrk"
)

func TestPagesRowsFailWhatDidNotWork(t *testing.T) {
	t.Parallel()
	p := samplePages()
	p.Refresh[0].Seckill.Non2xx = 12
	p.Revalidated = 200
	p.Follow[0].SSE = FollowRun{Shoppers: 2000, Requests: 4000, Unavailable: "GET /api/v1/orders/{id}/events answered 404"}
	rows := pagesRows(p)
	for i, want := range []string{"FAIL (12 errors or non-2xx answers)", "info (not 304)",
		"FAIL (GET /api/v1/orders/{id}/events answered 404)"} {
		if rows[i].Result != want {
			t.Errorf("row %d (%s): result %q, want %q", i, rows[i].Measure, rows[i].Result, want)
		}
	}
	if !strings.Contains(rows[1].Seckill, "answered 200") {
		t.Errorf("revalidate row hides the answer: %q", rows[1].Seckill)
	}
	var b strings.Builder
	writePagesRuns(&b, p)
	if want := "| 1 | SSE | — | — | — | — | — | — | — | GET /api/v1/orders/{id}/events answered 404 |"; !strings.Contains(b.String(), want) {
		t.Errorf("runs lack %q:\n%s", want, b.String())
	}
}

func TestFollowFigures(t *testing.T) {
	t.Parallel()
	f := FollowRun{Shoppers: 1000, Requests: 3500, SeckillCPU: 0.9, HeldCPU: 0.4}
	if got := f.RequestsPer(); got != 3.5 {
		t.Errorf("requests per purchase = %v, want 3.5", got)
	}
	if got := f.CPUPer(); got < 0.4999 || got > 0.5001 {
		t.Errorf("CPU per purchase = %v ms, want 0.5 (0.9 s less the pages' 0.4 s over 1,000)", got)
	}
	h := HeldPages{Pages: 500, Seconds: 4, SeckillCPU: 0.1, Statuses: map[string]int64{"item 304": 1800, "time 200": 200}}
	if h.Rate() != 500 || h.CPUPerPage() != 0.1/2000 {
		t.Errorf("held pages: %v req/s, %v s per page-second", h.Rate(), h.CPUPerPage())
	}
	if got := refreshRow(&Pages{Refresh: []RefreshRound{{Ceiling: wrk.Result{RPS: 1000}, Seckill: wrk.Result{RPS: 700}}}}); got.Result != "FAIL" {
		t.Errorf("refresh at 0.7× the ceiling: %q, want FAIL", got.Result)
	}
}
