package front

import (
	"sync"
	"time"
)

// pausedFor is how long a server answers a sale's purchases 423 itself
// after Redis said the sale is paused. A resume reaches every server's
// purchases within it, well inside the second the issue allows.
const pausedFor = 250 * time.Millisecond

// pausedSales remembers, for a moment, the sales Redis answered paused, so
// a storm that goes on during a pause is told 423 here instead of queueing
// for Redis or being shed by the admission gate as if it were a sell-out
// rush (a 503 would tell shoppers to hammer "try again"). It runs on the
// wall clock, not the sale clock: it caches an answer, it decides nothing.
type pausedSales struct {
	mu    sync.Mutex
	until map[int64]time.Time
}

func newPausedSales() *pausedSales { return &pausedSales{until: map[int64]time.Time{}} }

// mark records that Redis just said itemID is paused.
func (p *pausedSales) mark(itemID int64) {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, t := range p.until { // only sales Redis called paused: few
		if now.After(t) {
			delete(p.until, id)
		}
	}
	p.until[itemID] = now.Add(pausedFor)
}

// marked reports whether Redis said itemID was paused within pausedFor.
func (p *pausedSales) marked(itemID int64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	t, ok := p.until[itemID]
	return ok && time.Now().Before(t)
}
