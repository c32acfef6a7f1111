package report

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// writePagesRuns writes measure 8's individual runs.
func writePagesRuns(w io.Writer, p *Pages) {
	if p == nil {
		return
	}
	writeRuns(w, fmt.Sprintf("Pages held, the sale page's refresh (wrk, GET %s, req/s)", p.Path), []string{"round", "ceiling",
		"seckill", "ratio", "seckill, If-None-Match", "errors and non-2xx (seckill)", "wrk cores (ceiling / seckill)"},
		p.Refresh, func(r RefreshRound) []string {
			return []string{fmt.Sprint(r.Round), Thousands(r.Ceiling.RPS), Thousands(r.Seckill.RPS),
				times(Ratio(r.Seckill.RPS, r.Ceiling.RPS)), Thousands(r.Revalidate.RPS),
				fmt.Sprint(r.Seckill.Non2xx + r.Seckill.SocketErrors() + r.Revalidate.Non2xx + r.Revalidate.SocketErrors()),
				fmt.Sprintf("%.2f / %.2f", r.Ceiling.GenCores(), r.Seckill.GenCores())}
		})
	if len(p.Follow) > 0 {
		fmt.Fprintf(w, "\nPages held, purchases followed until confirmed (per purchase followed; CPU less the held pages' estimated share):\n\n")
		var rows [][]string
		for _, r := range p.Follow {
			rows = append(rows, followCells(r.Round, "polling", r.Poll), followCells(r.Round, "SSE", r.SSE))
		}
		writeTable(w, []string{"round", "way", "requests", "seckill CPU", "with the held pages' share", "confirmed p50 / p99",
			"purchase answered p50 / p99", "confirmed", "window", "answers"}, rows)
	}
	for _, h := range []struct {
		name string
		h    *HeldPages
	}{{"alone", p.HeldAlone}, {"during the follow runs", p.HeldDuring}} {
		if h.h != nil {
			fmt.Fprintf(w, "\nHeld pages %s: %s pages for %.1f s, %s req/s; answers %s.\n", h.name, Thousands(float64(h.h.Pages)),
				h.h.Seconds, Thousands(h.h.Rate()), statusList(h.h.Statuses))
		}
	}
}

func followCells(round int, way string, f FollowRun) []string {
	if f.Unavailable != "" {
		return []string{fmt.Sprint(round), way, "—", "—", "—", "—", "—", "—", "—", f.Unavailable}
	}
	return []string{fmt.Sprint(round), way, fmt.Sprintf("%.2f", f.RequestsPer()), fmt.Sprintf("%.3f ms", f.CPUPer()),
		fmt.Sprintf("%.3f ms", Ratio(1000*f.SeckillCPU, float64(f.Shoppers))),
		fmt.Sprintf("%.0f / %.0f ms", f.P50ms, f.P99ms), fmt.Sprintf("%.0f / %.0f ms", f.PurchaseP50ms, f.PurchaseP99ms),
		Thousands(float64(f.Confirmed)) + " of " + Thousands(float64(f.Shoppers)), fmt.Sprintf("%.1f s", f.Seconds),
		statusList(f.Statuses)}
}

// statusList is counts by answer, largest first: "item 304 9,000, time 200 1,000".
func statusList(counts map[string]int64) string {
	if len(counts) == 0 {
		return "none"
	}
	keys := slices.Collect(maps.Keys(counts))
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(counts[b], counts[a]), strings.Compare(a, b)) })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + " " + Thousands(float64(counts[k]))
	}
	return strings.Join(parts, ", ")
}

// pagesNote says how measure 8 was taken.
func pagesNote(res Results) []string {
	p := res.Pages
	if p == nil {
		return nil
	}
	s := res.Settings
	var out []string
	if len(p.Refresh) > 0 {
		out = append(out, fmt.Sprintf("Pages held, refresh: wrk -t%d -c%d -d%s sends GET %s, the request an open sale page makes "+
			"once a second, to the server and to the ceiling's GET route (a constant item body of the same shape, pre-encoded, "+
			"with the same ETag and Cache-Control headers), alternating; then the same at the server with If-None-Match: the ETag "+
			"it gave, as a browser's cache revalidates once max-age has passed. wrk does not tell a 304 from a 200, so the "+
			"answer to If-None-Match is checked once before the runs.", s.Threads, s.Connections, s.Duration, p.Path))
	}
	if p.HeldAlone != nil || len(p.Follow) > 0 {
		out = append(out, fmt.Sprintf("Pages held, follow: %s held pages (goroutines in the bench, each with its own keep-alive "+
			"connection, as browsers have) ask for their sale once a second, sending the last ETag in If-None-Match, and for "+
			"GET /api/v1/time every 10 s (the sale page itself syncs every 30 s), their phases spread evenly; they ran alone for %s, after a second to connect, to "+
			"measure their server CPU, then on through the follow runs, on each run's sale. In each follow run %s shoppers "+
			"(their starts spread over %s) each buy once on a fresh sale and follow their order until its status leaves "+
			"pending: polling GET /api/v1/orders/{id} 300 ms after the purchase and every 500 ms after, as the sale page "+
			"did, or one GET /api/v1/orders/{id}/events stream, closed at the first event that is not pending. Requests "+
			"count the purchase and every poll or stream opened; seckill CPU is the server process's (/proc/<pid>/stat) from "+
			"the first purchase sent to the last confirmation seen, less the held pages' CPU per second alone times that "+
			"window; time to confirmation runs from sending the purchase to seeing the order confirmed.",
			Thousands(float64(s.HeldPages)), s.HeldFor, Thousands(float64(s.FollowShoppers)), s.FollowSpread))
	}
	return out
}
