package runner

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/seckill/seckill/cmd/bench/internal/baseline"
	"github.com/seckill/seckill/cmd/bench/internal/machine"
	"github.com/seckill/seckill/cmd/bench/internal/report"
	"github.com/seckill/seckill/cmd/bench/internal/wrk"
	"github.com/seckill/seckill/internal/ctxtime"
)

// heldConnect is how long the held pages get to open their connections
// before any window counts them: their first refreshes are spread over
// heldRefresh.
const heldConnect = heldRefresh + 250*time.Millisecond

// pages runs measure 8: the sale page's refresh against the ceiling, then
// the held pages alone, then, with them still held, the purchases followed
// both ways.
func (r *runner) pages(ctx context.Context) (*report.Pages, error) {
	item, err := r.seckill.createSale(ctx, "bench pages", maxStock)
	if err != nil {
		return nil, err
	}
	p := &report.Pages{Path: "/api/v1/items/{id}", CeilingBytes: len(baseline.ItemBody)}
	if err := r.probePage(ctx, item, p); err != nil {
		return nil, err
	}
	for round := 1; round <= r.cfg.Rounds; round++ {
		rr, err := r.refreshRound(ctx, round, item, p.ETag)
		if err != nil {
			return nil, fmt.Errorf("refresh round %d: %w", round, err)
		}
		p.Refresh = append(p.Refresh, rr)
		r.logf("round %d pages, refresh: ceiling %s req/s, seckill %s req/s, with If-None-Match %s req/s", round,
			report.Thousands(rr.Ceiling.RPS), report.Thousands(rr.Seckill.RPS), report.Thousands(rr.Revalidate.RPS))
	}
	return p, r.heldAndFollowed(ctx, item, p)
}

// probePage reads the page once as a browser would, and once more with the
// ETag it gave: wrk cannot say what the server answered to If-None-Match.
func (r *runner) probePage(ctx context.Context, item int64, p *report.Pages) error {
	first, err := r.seckill.api.Do(ctx, "GET", itemPath(item), "", nil)
	if err != nil {
		return err
	}
	if first.Status != http.StatusOK {
		return fmt.Errorf("GET %s: %d %s", itemPath(item), first.Status, first.Raw)
	}
	p.ItemBytes, p.ETag = len(first.Raw), first.Header.Get("ETag")
	if p.ETag == "" {
		p.Revalidated = first.Status
		return nil
	}
	again, err := r.seckill.api.Do(ctx, "GET", itemPath(item), "", nil, "If-None-Match", p.ETag)
	p.Revalidated = again.Status
	return err
}

// refreshRound is the ceiling and the server alternating on the page's
// request, then the server revalidating it.
func (r *runner) refreshRound(ctx context.Context, round int, item int64, etag string) (report.RefreshRound, error) {
	rr := report.RefreshRound{Round: round}
	path := itemPath(item)
	ceiling := func() (err error) {
		rr.Ceiling, err = r.wrkGet(ctx, r.ceilingURL+path)
		return err
	}
	seckill := func() (err error) {
		if rr.Seckill, err = r.wrkGet(ctx, r.seckill.url+path); err != nil {
			return err
		}
		var revalidate []string
		if etag != "" {
			revalidate = []string{"If-None-Match: " + etag}
		}
		rr.Revalidate, err = r.wrkGet(ctx, r.seckill.url+path, revalidate...)
		return err
	}
	return rr, inOrder(round%2 == 0, ceiling, seckill)
}

// wrkGet runs the throughput generator's plain GET of url with headers.
func (r *runner) wrkGet(ctx context.Context, url string, headers ...string) (wrk.Result, error) {
	busy := machine.Settle(ctx)
	w, out, err := wrk.Cmd{Bin: r.cfg.Wrk, Threads: r.cfg.Threads, Connections: r.cfg.Connections,
		Duration: r.cfg.Duration, Headers: headers, URL: url}.Run(ctx)
	if err != nil {
		return w, fmt.Errorf("%w\n%s", err, out)
	}
	w.BusyBefore = busy
	return w, nil
}

// heldAndFollowed holds the pages open on item, measures them alone, then
// runs the follow rounds with them still held.
func (r *runner) heldAndFollowed(ctx context.Context, item int64, p *report.Pages) error {
	followers, err := mintShoppers(r.seckill.secret, "follower-", r.cfg.Followers, 6*time.Hour)
	if err != nil {
		return err
	}
	machine.Settle(ctx)
	held := &heldPages{base: r.seckill.url, n: r.cfg.HeldPages}
	held.item.Store(item)
	hctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); held.run(hctx) }()
	defer func() { stop(); <-done }()
	r.logf("holding %s sale pages", report.Thousands(float64(held.n)))
	if ctxtime.Sleep(ctx, heldConnect) != nil {
		return ctx.Err()
	}
	if p.HeldAlone, err = r.heldWindow(held, func() error {
		return ctxtime.Sleep(ctx, r.cfg.HeldFor)
	}); err != nil {
		return err
	}
	a := p.HeldAlone
	r.logf("held pages alone: %s req/s (%s), %.1f µs seckill CPU per page per second", report.Thousands(a.Rate()),
		report.Mix(a.Statuses), 1e6*a.CPUPerPage())
	heldRate := report.Ratio(a.SeckillCPU, a.Seconds)
	p.HeldDuring, err = r.heldWindow(held, func() error {
		for round := 1; round <= r.cfg.Rounds; round++ {
			fr, err := r.followRound(ctx, round, held, followers, heldRate)
			if err != nil {
				return fmt.Errorf("follow round %d: %w", round, err)
			}
			p.Follow = append(p.Follow, fr)
		}
		return nil
	})
	p.HeldDuring.SeckillCPU = 0 // shared with the purchases: not the pages' alone
	return err
}

// heldWindow counts what the held pages asked and the server spent while f ran.
func (r *runner) heldWindow(held *heldPages, f func() error) (*report.HeldPages, error) {
	before, began := held.counts.snapshot(), time.Now()
	cpu, err := r.meter(r.seckill.Pid()).spent(f)
	return &report.HeldPages{Pages: held.n, Seconds: time.Since(began).Seconds(), Statuses: held.counts.since(before),
		SeckillCPU: cpu.Servers}, err
}
