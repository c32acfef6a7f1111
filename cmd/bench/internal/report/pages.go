package report

import (
	"fmt"

	"github.com/seckill/seckill/cmd/bench/internal/wrk"
)

// Pages is measure 8, "pages held": what open sale pages cost. A sale page
// refreshes its sale once a second (Refresh: closed loop, against the
// ceiling), syncs its clock now and then, and, after a purchase, follows
// the order until MySQL has it (Follow: by polling or by one event stream,
// with a population of held pages running meanwhile).
type Pages struct {
	Path         string         `json:"path"` // the refreshed page, GET /api/v1/items/{id}
	ItemBytes    int            `json:"item_body_bytes"`
	CeilingBytes int            `json:"ceiling_body_bytes"`
	ETag         string         `json:"etag"`              // what the server gave for the page
	Revalidated  int            `json:"revalidate_status"` // its answer to If-None-Match: ETag; 304 expected
	Refresh      []RefreshRound `json:"refresh_rounds,omitempty"`
	HeldAlone    *HeldPages     `json:"held_pages_alone,omitempty"` // before the purchases, nothing else running
	HeldDuring   *HeldPages     `json:"held_pages_during_follow,omitempty"`
	Follow       []FollowRound  `json:"follow_rounds,omitempty"`
}

// RefreshRound is one round of the refresh: the ceiling and the server
// alternating, then the server revalidating with the ETag it gave.
type RefreshRound struct {
	Round      int        `json:"round"`
	Ceiling    wrk.Result `json:"ceiling"`
	Seckill    wrk.Result `json:"seckill"`
	Revalidate wrk.Result `json:"seckill_if_none_match"`
}

// HeldPages is a population of open sale pages over one window: each asks
// for its sale once a second (with the last ETag) and for the server's
// time every ten seconds.
type HeldPages struct {
	Pages    int              `json:"pages"`
	Seconds  float64          `json:"seconds"`
	Statuses map[string]int64 `json:"statuses"` // "item 304", "time 200", "item error", ...
	// SeckillCPU is the server's CPU over the window; only measured with
	// the pages alone, as nothing else separates their share.
	SeckillCPU float64 `json:"seckill_cpu_seconds,omitempty"`
}

// Rate is the pages' requests per second.
func (h HeldPages) Rate() float64 { return Ratio(float64(SumOutcomes(h.Statuses)), h.Seconds) }

// CPUPerPage is the server's CPU seconds per held page per second.
func (h HeldPages) CPUPerPage() float64 { return Ratio(h.SeckillCPU, h.Seconds*float64(h.Pages)) }

// FollowRound is one round of the follow: the same number of shoppers,
// each buying once on a fresh sale, following their order by polling and
// by an event stream, in alternating order.
type FollowRound struct {
	Round int       `json:"round"`
	Poll  FollowRun `json:"poll"`
	SSE   FollowRun `json:"sse"`
}

// FollowRun is one way of following, for every shopper of a round.
type FollowRun struct {
	Shoppers  int              `json:"shoppers"`
	Confirmed int              `json:"confirmed"` // bought (202) and saw the order leave pending
	Requests  int64            `json:"requests"`  // purchases, polls and streams opened
	Statuses  map[string]int64 `json:"statuses"`  // "purchase 202", "poll 200", "stream 200", "stream error", ...
	Seconds   float64          `json:"seconds"`   // the first purchase sent to the last confirmation seen
	// SeckillCPU is the server process's CPU over Seconds; HeldCPU the held
	// pages' share of it, estimated from their CPU alone: same pages, same rate.
	SeckillCPU float64 `json:"seckill_cpu_seconds"`
	HeldCPU    float64 `json:"held_pages_cpu_seconds_estimated"`
	P50ms      float64 `json:"confirmed_p50_ms"` // purchase sent to confirmation seen
	P99ms      float64 `json:"confirmed_p99_ms"`
	// PurchaseP50ms and PurchaseP99ms are the purchase's own answer time,
	// the part of the time to confirmation before following began.
	PurchaseP50ms float64 `json:"purchase_p50_ms"`
	PurchaseP99ms float64 `json:"purchase_p99_ms"`
	Unavailable   string  `json:"unavailable,omitempty"` // why this way could not run at all
}

// RequestsPer is the HTTP requests per purchase followed.
func (f FollowRun) RequestsPer() float64 { return Ratio(float64(f.Requests), float64(f.Shoppers)) }

// CPUPer is the server's CPU milliseconds per purchase followed, less the
// held pages' estimated share.
func (f FollowRun) CPUPer() float64 { return Ratio(1000*(f.SeckillCPU-f.HeldCPU), float64(f.Shoppers)) }

// pagesRows are measure 8's summary rows: the refresh against its target,
// the rest as information.
func pagesRows(p *Pages) []Row {
	if p == nil {
		return nil
	}
	var rows []Row
	if len(p.Refresh) > 0 {
		rows = append(rows, refreshRow(p), revalidateRow(p))
	}
	if len(p.Follow) > 0 {
		rows = append(rows, followRow(p.Follow))
	}
	if p.HeldAlone != nil {
		rows = append(rows, heldRow(*p.HeldAlone, p.HeldDuring))
	}
	return rows
}

func refreshRow(p *Pages) Row {
	var ceiling, seckill []float64
	var bad int64
	for _, r := range p.Refresh {
		ceiling, seckill = append(ceiling, r.Ceiling.RPS), append(seckill, r.Seckill.RPS)
		bad += r.Seckill.Non2xx + r.Seckill.SocketErrors()
	}
	q := Ratio(Median(seckill), Median(ceiling))
	verdict := passFail(q >= targetRefresh, "")
	if bad > 0 {
		verdict = passFail(false, Thousands(float64(bad))+" errors or non-2xx answers")
	}
	return Row{
		Measure: "pages held: the sale page's refresh, GET " + p.Path + ", closed loop",
		Seckill: fmt.Sprintf("%s req/s (%s B bodies)", Thousands(Median(seckill)), Thousands(float64(p.ItemBytes))),
		Baseline: fmt.Sprintf("ceiling %s req/s (constant %s B body)", Thousands(Median(ceiling)),
			Thousands(float64(p.CeilingBytes))),
		Ratio: times(q), Target: fmt.Sprintf("≥ %.1f× ceiling", targetRefresh), Result: verdict,
	}
}

// revalidateRow is the refresh as a browser's cache sends it once max-age
// has passed: with If-None-Match. What the server answered it is checked
// once before the runs, since wrk does not tell a 304 from a 200.
func revalidateRow(p *Pages) Row {
	var ceiling, seckill []float64
	for _, r := range p.Refresh {
		ceiling, seckill = append(ceiling, r.Ceiling.RPS), append(seckill, r.Revalidate.RPS)
	}
	answered := fmt.Sprintf("answered %d", p.Revalidated)
	if p.ETag == "" {
		answered = "no ETag given: sent without If-None-Match"
	}
	result := "info"
	if p.Revalidated != 304 {
		result = "info (not 304)"
	}
	return Row{
		Measure:  "pages held: the same refresh with If-None-Match: <the ETag the server gave>",
		Seckill:  fmt.Sprintf("%s req/s (%s)", Thousands(Median(seckill)), answered),
		Baseline: "ceiling " + Thousands(Median(ceiling)) + " req/s (200, full body)",
		Ratio:    times(Ratio(Median(seckill), Median(ceiling))), Target: "—", Result: result,
	}
}

// followRow sets the event stream against polling: requests, server CPU
// and time to confirmation per purchase followed, medians of the rounds.
func followRow(rounds []FollowRound) Row {
	poll, sse := followMedians(rounds, false), followMedians(rounds, true)
	row := Row{
		Measure: fmt.Sprintf("pages held: a purchase followed until confirmed, %s shoppers, one event stream (SSE) vs polling every 500 ms",
			Thousands(float64(rounds[0].Poll.Shoppers))),
		Seckill: "SSE: " + sse.describe(), Baseline: "polling: " + poll.describe(),
		Ratio: times(Ratio(sse.cpu, poll.cpu)) + " (CPU)", Target: "—", Result: "info",
	}
	for _, r := range rounds {
		for _, f := range []FollowRun{r.Poll, r.SSE} {
			switch {
			case f.Unavailable != "":
				row.Result, row.Ratio = "FAIL ("+f.Unavailable+")", "—"
			case f.Confirmed < f.Shoppers && row.Result == "info":
				row.Result = "info (some orders never seen confirmed)"
			}
		}
	}
	return row
}

// followFigures are one way's medians over the rounds.
type followFigures struct {
	requests, cpu, rawCPU, p50, p99 float64
	confirmed, shoppers             int
}

func followMedians(rounds []FollowRound, sse bool) followFigures {
	var req, cpu, raw, p50, p99 []float64
	var f followFigures
	for _, r := range rounds {
		run := r.Poll
		if sse {
			run = r.SSE
		}
		req, cpu = append(req, run.RequestsPer()), append(cpu, run.CPUPer())
		raw = append(raw, Ratio(1000*run.SeckillCPU, float64(run.Shoppers)))
		p50, p99 = append(p50, run.P50ms), append(p99, run.P99ms)
		f.confirmed, f.shoppers = f.confirmed+run.Confirmed, f.shoppers+run.Shoppers
	}
	f.requests, f.cpu, f.rawCPU, f.p50, f.p99 = Median(req), Median(cpu), Median(raw), Median(p50), Median(p99)
	return f
}

// describe is one way's cell of the follow row.
func (f followFigures) describe() string {
	return fmt.Sprintf("%.2f requests, %.3f ms seckill CPU (%.3f ms with the held pages' share) per purchase followed; "+
		"confirmed after p50 %.0f ms, p99 %.0f ms; %s of %s confirmed",
		f.requests, f.cpu, f.rawCPU, f.p50, f.p99, Thousands(float64(f.confirmed)), Thousands(float64(f.shoppers)))
}

func heldRow(alone HeldPages, during *HeldPages) Row {
	cell := fmt.Sprintf("alone: %s req/s (%s), %.1f µs seckill CPU per page per second", Thousands(alone.Rate()),
		Mix(alone.Statuses), 1e6*alone.CPUPerPage())
	if during != nil {
		cell += fmt.Sprintf("; during the follow runs: %s req/s (%s)", Thousands(during.Rate()), Mix(during.Statuses))
	}
	return Row{
		Measure: fmt.Sprintf("pages held: %s open sale pages (the sale once a second with If-None-Match, the clock every 10 s)",
			Thousands(float64(alone.Pages))),
		Seckill: cell, Baseline: "—", Ratio: "—", Target: "—", Result: "info",
	}
}
