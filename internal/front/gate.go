package front

import (
	"sync"
	"time"
)

// Gate decides which purchase requests may run the reserve script.
//
// The admission gate caps, per sale and variant, how many purchase requests
// reach Redis in each window without getting a unit: at most
// max(floor, multiple × the variant's stock left, as this server last saw
// it). When thousands of shoppers chase a few units, the rest are answered
// at once without a round trip. The count is per server process.
//
// Two rules keep it from turning shoppers away while units are left and
// Redis is idle (issue 14: a storm of 1,500 shoppers at 300 units was told
// 503 3,617 times with units left):
//
//   - A shopper who gets a unit stops counting. Buyers need no cap: there are
//     never more of them than units. Counting them, a window closed once its
//     sales reached multiple × what was left (the cap falls with every sale
//     while the count only grows), and the units the requests still in
//     flight did not take stayed unsold until a new window.
//     Whether a storm met that depended on how many purchases it had in
//     flight and where its windows fell, so it was not predictable.
//   - The cap never falls below floor while units are left: multiple × left
//     is tens for the last few units, a handful of shoppers racing for them
//     (or retrying after already buying) used it up, and a few thousand
//     requests a second are nothing to Redis (it runs the reserve script at
//     ~30k/s unpipelined, and the server coalesces calls).
//
// So each window Redis sees at most the window's buyers, who are bounded by
// the stock, plus max(floor, multiple × left) others. Once the variant is
// seen sold out in a window, everyone else in it is told so at once. A zero
// seen in an older window may be stale (a cancel may have put a unit back),
// so the first shopper of a window always reaches Redis, and with a floor so
// do those who come before that answer (within the floor), rather than being
// told 503 while Redis is idle.
type Gate struct {
	multiple int
	floor    int
	window   time.Duration
	now      func() time.Time
	mu       sync.Mutex
	sales    map[key]*gateSale
}

// key is a variant of a sale, as the purchase named it (0: the sale's only
// one).
type key struct{ item, variant int64 }

type gateSale struct {
	start    time.Time       // of the current window
	shoppers map[string]bool // admitted in it (a shopper counts once a window): whether they got a unit
	waiting  int             // admitted in it and without a unit: what the cap counts
	left     int64           // stock left, as last seen
	seen     time.Time       // when left was seen
}

// NewGate returns a gate letting through, per window, every buyer and up to
// max(floor, multiple × stock left) other shoppers; multiple 0 turns it off.
func NewGate(multiple, floor int, window time.Duration, now func() time.Time) *Gate {
	return &Gate{multiple: multiple, floor: floor, window: window, now: now, sales: map[key]*gateSale{}}
}

// Admit reports whether shopper's request for the sale may run the reserve
// script and, if not, whether the sale is sold out as of this window. Each
// shopper counts once a window (their retries are bounded by the
// per-shopper rate limit), so a few accounts sending many requests cannot
// use up a sale's room. The first shopper of every window is admitted, so
// stock that comes back (a cancel) is seen within a window.
func (g *Gate) Admit(itemID, variantID int64, shopper string) (ok, soldOut bool) {
	if g.off() {
		return true, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.sales[key{itemID, variantID}]
	if s == nil {
		// Only Redis's answers add sales (Observe, Bought), so requests
		// for made-up ids cannot grow this map.
		return true, false
	}
	if now := g.now(); now.Sub(s.start) >= g.window {
		s.newWindow(now)
	}
	if _, ok := s.shoppers[shopper]; ok {
		return true, false
	}
	if len(s.shoppers) > 0 {
		if s.left <= 0 && !s.seen.Before(s.start) {
			return false, true
		}
		// An older zero may be stale (a cancel whose announcement this
		// server missed): until an answer in this window says, it is an
		// unknown like any other, asked of Redis within the floor.
		if int64(s.waiting) >= max(int64(g.floor), int64(g.multiple)*s.left) {
			return false, false
		}
	}
	s.shoppers[shopper] = false
	s.waiting++
	return true, false
}

// Observe records the variant's stock left that a reserve answer reported.
func (g *Gate) Observe(itemID, variantID, left int64) {
	if g.off() || left < 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.observe(itemID, variantID, left)
}

// Bought records that shopper got a unit of the variant, leaving left: if
// they were admitted in this window, they no longer count against its cap.
func (g *Gate) Bought(itemID, variantID int64, shopper string, left int64) {
	if g.off() || left < 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.observe(itemID, variantID, left)
	if got, ok := s.shoppers[shopper]; ok && !got {
		s.shoppers[shopper] = true
		s.waiting--
	}
}

func (g *Gate) observe(itemID, variantID, left int64) *gateSale {
	now := g.now()
	k := key{itemID, variantID}
	s := g.sales[k]
	if s == nil {
		s = &gateSale{}
		s.newWindow(now)
		g.sales[k] = s
	}
	s.left, s.seen = left, now
	return s
}

// Returned records that stock came back to a sale, leaving left in all:
// the cap of each of its variants is lifted for a new window at once, so
// returned stock is never answered as sold out or busy for the rest of the
// current one. Which variant it went to is not said, so each is taken to
// have up to left.
func (g *Gate) Returned(itemID, left int64) {
	if g.off() {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	for k, s := range g.sales {
		if k.item == itemID {
			s.left, s.seen = left, now
			s.newWindow(now)
		}
	}
}

func (s *gateSale) newWindow(now time.Time) {
	s.start, s.waiting, s.shoppers = now, 0, map[string]bool{}
}

func (g *Gate) off() bool { return g == nil || g.multiple <= 0 }

// Len is how many variants of sales the gate tracks.
func (g *Gate) Len() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.sales)
}
