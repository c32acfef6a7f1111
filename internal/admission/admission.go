// Package admission caps, per sale and variant, how many purchase requests
// reach Redis: in each window, a multiple of the variant's stock left (as
// this server last saw it).
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
	sales    map[key]*sale
}

// key is a variant of a sale, as the purchase named it (0: the sale's only
// one).
type key struct{ item, variant int64 }

type sale struct {
	start    time.Time           // of the current window
	n        int                 // shoppers admitted in it
	shoppers map[string]struct{} // who they are: a shopper counts once a window
	left     int64               // stock left, as last seen
	seen     time.Time           // when left was seen
}

// New returns a gate admitting multiple × stock left per window; multiple 0
// turns it off.
func New(multiple int, window time.Duration, now func() time.Time) *Gate {
	return &Gate{multiple: multiple, window: window, now: now, sales: map[key]*sale{}}
}

// Admit reports whether shopper's request for the sale may run the reserve
// script and, if not, whether the sale is sold out as of this window. Each
// shopper counts once a window (their retries are bounded by the
// per-shopper rate limit), so a few accounts sending many requests cannot
// use up a sale's room. The first shopper of every window is admitted, so
// stock that comes back (a cancel) is seen within a window.
func (g *Gate) Admit(itemID, variantID int64, shopper string) (ok, soldOut bool) {
	if g == nil || g.multiple <= 0 {
		return true, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.sales[key{itemID, variantID}]
	if s == nil {
		// Only Observe adds sales (after Redis answered for a real one), so
		// requests for made-up ids cannot grow this map.
		return true, false
	}
	if now := g.now(); now.Sub(s.start) >= g.window {
		s.start, s.n, s.shoppers = now, 0, map[string]struct{}{}
	}
	if _, ok := s.shoppers[shopper]; ok {
		return true, false
	}
	if s.n > 0 && int64(s.n) >= max(1, int64(g.multiple)*s.left) {
		// Sold out only if seen so in this window; an older zero may be
		// stale (a cancel), so that shopper is told to retry instead.
		return false, s.left <= 0 && !s.seen.Before(s.start)
	}
	s.n++
	s.shoppers[shopper] = struct{}{}
	return true, false
}

// Observe records the variant's stock left that a reserve answer reported.
func (g *Gate) Observe(itemID, variantID, left int64) {
	if g == nil || g.multiple <= 0 || left < 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	k := key{itemID, variantID}
	s := g.sales[k]
	if s == nil {
		s = &sale{start: now, shoppers: map[string]struct{}{}}
		g.sales[k] = s
	}
	s.left, s.seen = left, now
}

// Returned records that stock came back to a sale, leaving left in all:
// the cap of each of its variants is lifted for a new window at once, so
// returned stock is never answered as sold out or busy for the rest of the
// current one. Which variant it went to is not said, so each is taken to
// have up to left.
func (g *Gate) Returned(itemID, left int64) {
	if g == nil || g.multiple <= 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	for k, s := range g.sales {
		if k.item == itemID {
			s.left, s.seen = left, now
			s.start, s.n, s.shoppers = now, 0, map[string]struct{}{}
		}
	}
}

// Len is how many variants of sales the gate tracks.
func (g *Gate) Len() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.sales)
}
