package httpapi

import (
	"cmp"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/pow"
)

// RequestMetrics count what the HTTP layer answers (metrics.Set).
type RequestMetrics interface {
	// ObserveRequest times one request by its route pattern and status.
	ObserveRequest(route string, status int, took time.Duration)
	// PurchaseOutcome counts one purchase attempt by its outcome.
	PurchaseOutcome(outcome string)
	// PurchaseHandled times the purchase handler's work on one request.
	PurchaseHandled(took time.Duration)
}

// PowMetrics count what the proof of work does to the traffic
// (metrics.Set).
type PowMetrics = pow.Metrics

// Metrics are what the HTTP layer counts, and the page that shows the
// server's metrics (metrics.Set and its Handler, which caches the gathering
// for Settings.OpsCache). A nil part counts nothing; with no Page, GET
// /metrics answers 404.
type Metrics struct {
	Requests RequestMetrics
	Pow      PowMetrics
	Page     http.Handler
}

// outcomeKey is where the purchase's handlers put its outcome when it is not
// simply the error code answered (reserved, replayed, gated_*).
const outcomeKey = "seckill.purchase_outcome"

// handledKey holds the time the purchase handler began: the duration
// histogram times the handler's work, not the guards before it.
const handledKey = "seckill.purchase_handled"

// purchaseOutcome counts every purchase by outcome, whichever guard or
// handler answered, and times those the handler answered: the one place the
// purchase metrics are counted. It runs first on the purchase route, after
// the group's Origin check (a cross-site POST is no purchase attempt).
func (m Metrics) purchaseOutcome(c *gin.Context) {
	c.Next()
	if m.Requests == nil {
		return
	}
	outcome := cmp.Or(c.GetString(outcomeKey), c.GetString(errorCodeKey))
	if outcome == "" && c.Writer.Status() == http.StatusGone {
		// The sold-out mark's pre-encoded answer: it sets nothing, since
		// the first value set allocates the request's key map, and that
		// storm is answered thousands of times a second.
		outcome = "marked_sold_out"
	}
	m.Requests.PurchaseOutcome(cmp.Or(outcome, "unknown"))
	if start, ok := c.Get(handledKey); ok {
		m.Requests.PurchaseHandled(time.Since(start.(time.Time)))
	}
}

// middleware times every request by route and status.
func (m Metrics) middleware(c *gin.Context) {
	start := time.Now()
	c.Next()
	if m.Requests == nil {
		return
	}
	route := c.FullPath()
	if route == "" {
		route = "unmatched" // never the raw path: unbounded label values
	}
	m.Requests.ObserveRequest(route, c.Writer.Status(), time.Since(start))
}

// page serves GET /metrics.
func (m Metrics) page(c *gin.Context) {
	if m.Page == nil {
		c.AbortWithStatus(http.StatusNotFound)
		return
	}
	m.Page.ServeHTTP(c.Writer, c.Request)
}
