package runner

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/seckill/seckill/cmd/bench/internal/machine"
	"github.com/seckill/seckill/cmd/bench/internal/report"
)

// The follow run's shoppers start spread over followSpread rather than all
// in one instant: a sale's buyers arrive over a second or so, and both ways
// get the same arrivals.
const followSpread = time.Second

// followRound runs the two ways of following, polling and the event
// stream, in alternating order, each on a sale of its own.
func (r *runner) followRound(ctx context.Context, round int, held *heldPages, followers []shopper, heldRate float64) (report.FollowRound, error) {
	fr := report.FollowRound{Round: round}
	poll := func() (err error) {
		fr.Poll, err = r.followRun(ctx, round, held, followers, false, heldRate)
		return err
	}
	sse := func() (err error) {
		fr.SSE, err = r.followRun(ctx, round, held, followers, true, heldRate)
		return err
	}
	return fr, inOrder(round%2 == 0, poll, sse)
}

// followRun has every follower buy once on a fresh sale, which the held
// pages move to, and follow the order one way until it is confirmed.
func (r *runner) followRun(ctx context.Context, round int, held *heldPages, followers []shopper, sse bool, heldRate float64) (report.FollowRun, error) {
	way := map[bool]string{false: "polling", true: "SSE"}[sse]
	run := report.FollowRun{Shoppers: len(followers)}
	item, err := r.seckill.createSale(ctx, fmt.Sprintf("bench follow %s %d", way, round), maxStock)
	if err != nil {
		return run, err
	}
	held.item.Store(item)
	mint := purchaseTokens(r.seckill.secret, item, time.Hour)
	tokens := make([]string, len(followers))
	for i, sh := range followers {
		tokens[i] = mint(sh.user)
	}
	machine.Settle(ctx)
	var counts tally
	times := make([]followed, len(followers))
	began := time.Now()
	cpu, err := r.meter(r.seckill.Pid()).spent(func() error {
		var wg sync.WaitGroup
		for i := range followers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if sleep(ctx, followSpread*time.Duration(i)/time.Duration(len(followers))) {
					times[i] = r.buyAndFollow(ctx, followers[i], tokens[i], item, sse, &counts)
				}
			}()
		}
		wg.Wait()
		return ctx.Err()
	})
	run.Seconds, run.SeckillCPU, run.Statuses = time.Since(began).Seconds(), cpu.Servers, counts.snapshot()
	run.HeldCPU, run.Requests = heldRate*run.Seconds, report.SumOutcomes(run.Statuses)
	bought, confirmed := make([]time.Duration, len(times)), make([]time.Duration, len(times))
	for i, t := range times {
		bought[i], confirmed[i] = t.bought, t.confirmed
	}
	_, run.PurchaseP50ms, run.PurchaseP99ms = percentiles(bought)
	run.Confirmed, run.P50ms, run.P99ms = percentiles(confirmed)
	if sse && run.Statuses["stream 200"] == 0 && run.Statuses["stream 404"] > 0 {
		run.Unavailable = "GET /api/v1/orders/{id}/events answered 404"
	}
	r.logf("round %d follow by %s: %.2f requests and %.3f ms seckill CPU per purchase, %d of %d confirmed, p50 %.0f ms, p99 %.0f ms "+
		"(purchase answered p50 %.0f ms, p99 %.0f ms; %s)", round, way, run.RequestsPer(), run.CPUPer(), run.Confirmed, run.Shoppers,
		run.P50ms, run.P99ms, run.PurchaseP50ms, run.PurchaseP99ms, report.Mix(run.Statuses))
	return run, err
}

// percentiles counts the times that came (non-zero) and gives their p50 and
// p99 in milliseconds.
func percentiles(took []time.Duration) (int, float64, float64) {
	var ok []time.Duration
	for _, d := range took {
		if d > 0 {
			ok = append(ok, d)
		}
	}
	if len(ok) == 0 {
		return 0, 0, 0
	}
	slices.Sort(ok)
	at := func(q float64) float64 {
		return float64(ok[int(q*float64(len(ok)-1)+0.5)]) / float64(time.Millisecond)
	}
	return len(ok), at(0.50), at(0.99)
}
