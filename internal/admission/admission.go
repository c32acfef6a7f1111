// Package admission caps, per sale, how many purchase requests reach Redis:
// in each window, a multiple of the stock left (as this server last saw it).
// When thousands of shoppers chase a few units, the rest are answered at once
// without a round trip. The count is per server process.
package admission

import (
	"sync"
	"time"
)

// Gate decides which purchase requests may run the reserve script.
type Gate struct {
	multiple int
	window   time.Duration
	now      func() time.Time
	mu       sync.Mutex
	sales    map[int64]*sale
}

type sale struct {
	start time.Time // of the current window
	n     int       // requests admitted or refused in it
	left  int64     // stock left, as last seen
	known bool
}

// New returns a gate admitting multiple × stock left per window; multiple 0
// turns it off.
func New(multiple int, window time.Duration, now func() time.Time) *Gate {
	return &Gate{multiple: multiple, window: window, now: now, sales: map[int64]*sale{}}
}

// Admit reports whether a request for the sale may run the reserve script
// and, if not, whether the sale looked sold out. The first request of every
// window is admitted, so stock that comes back (a cancel) is seen within a
// window.
func (g *Gate) Admit(itemID int64) (ok, soldOut bool) {
	if g == nil || g.multiple <= 0 {
		return true, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.sales[itemID]
	if s == nil {
		// Only Observe adds sales (after Redis answered for a real one), so
		// requests for made-up ids cannot grow this map.
		return true, false
	}
	if now := g.now(); now.Sub(s.start) >= g.window {
		s.start, s.n = now, 0
	}
	s.n++
	if !s.known || s.n == 1 {
		return true, false
	}
	return int64(s.n) <= max(1, int64(g.multiple)*s.left), s.left <= 0
}

// Observe records the stock left that a reserve answer reported.
func (g *Gate) Observe(itemID, left int64) {
	if g == nil || g.multiple <= 0 || left < 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.sales[itemID]
	if s == nil {
		s = &sale{start: g.now(), n: 1}
		g.sales[itemID] = s
	}
	s.left, s.known = left, true
}

// Len is how many sales the gate tracks.
func (g *Gate) Len() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.sales)
}
