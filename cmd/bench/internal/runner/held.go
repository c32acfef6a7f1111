package runner

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seckill/seckill/internal/ctxtime"
)

// A held page's two timers: the sale's refresh once a second (the answer
// may be cached max-age=1, so each refresh is a request, revalidating with
// the last ETag) and a clock sync every ten, as issue 14 sets them. The sale
// page itself syncs every 30 s, so the pages here ask for the time three
// times as often as it does: an upper bound on that part.
const (
	heldRefresh = time.Second
	heldSyncs   = 10 // refreshes per clock sync
)

// heldPages is a population of open sale pages, each a goroutine with a
// browser of its own. They are pages opened earlier, not a crowd arriving:
// their timers' phases are spread evenly over the period.
type heldPages struct {
	base   string
	n      int
	item   atomic.Int64 // the sale they show; the runner moves them to each run's sale
	counts tally
}

// run holds the pages open until ctx ends.
func (h *heldPages) run(ctx context.Context) {
	var wg sync.WaitGroup
	for i := range h.n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.page(ctx, i)
		}()
	}
	wg.Wait()
}

func (h *heldPages) page(ctx context.Context, i int) {
	c := newBrowser()
	defer c.CloseIdleConnections()
	if ctxtime.Sleep(ctx, heldRefresh*time.Duration(i)/time.Duration(h.n)) != nil {
		return
	}
	tick := time.NewTicker(heldRefresh)
	defer tick.Stop()
	var shown int64
	var etag string
	for k := 0; ; k++ {
		if item := h.item.Load(); item != shown { // another sale: a page of its own, nothing cached
			shown, etag = item, ""
		}
		etag = h.refresh(ctx, c, shown, etag)
		if k%heldSyncs == i%heldSyncs {
			h.syncClock(ctx, c)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// refresh asks for the sale as a browser's cache does past max-age: with
// If-None-Match when it holds an ETag. It returns the ETag to keep.
func (h *heldPages) refresh(ctx context.Context, c *http.Client, item int64, etag string) string {
	req, err := http.NewRequestWithContext(ctx, "GET", h.base+itemPath(item), nil)
	if err != nil {
		return etag
	}
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := c.Do(req)
	if ctx.Err() != nil {
		return etag // the run ended, not the server
	}
	if err != nil {
		h.counts.add("item", 0, err)
		return etag
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	h.counts.add("item", resp.StatusCode, err)
	if resp.StatusCode == http.StatusOK {
		return resp.Header.Get("ETag")
	}
	return etag
}

var errNoTime = errors.New("GET /api/v1/time answered without server_time")

// syncClock reads the server's time, as the page does to count down to
// the sale's opening by the server's clock.
func (h *heldPages) syncClock(ctx context.Context, c *http.Client) {
	req, err := http.NewRequestWithContext(ctx, "GET", h.base+"/api/v1/time", nil)
	if err != nil {
		return
	}
	var body struct {
		ServerTime time.Time `json:"server_time"`
	}
	status, err := doJSON(c, req, &body)
	if ctx.Err() != nil {
		return
	}
	if err == nil && status == http.StatusOK && body.ServerTime.IsZero() {
		err = errNoTime
	}
	h.counts.add("time", status, err)
}
