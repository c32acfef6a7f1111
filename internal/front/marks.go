package front

import (
	"slices"
	"sync"
	"time"
)

// Marks are the sold-out marks of one server.
//
// The sold-out marks keep, per server process, a mark on each sale that Redis
// has reported sold out, so that the storm that follows a sell-out is
// answered without a Redis round trip.
//
// A mark must never outlive the stock coming back. Every return of stock
// (cancel, payment timeout, admin adding stock, warm) bumps the sale's
// count of returns in Redis and is announced to every server; a sold-out
// answer carries the count its script saw. A mark is only set from an
// answer at least as new as the last return heard of, and a return clears
// any mark older than itself, so the order in which the answer and the
// announcement arrive does not matter. If an announcement is lost (a
// dropped pub/sub connection), the mark still lapses after its TTL, when the
// next purchase asks Redis again.
//
// A sale of several variants has a mark per variant too, set when Redis
// answers that a variant is gone; it remembers which of the sale's variants
// still had stock then, so the answer can offer them. Any return of stock
// to the sale clears its variants' older marks.
type Marks struct {
	ttl   time.Duration
	now   func() time.Time
	mu    sync.RWMutex
	sales map[int64]*markedSale
}

type markedSale struct {
	marked   bool
	at       time.Time // when the mark was set
	seen     int64     // returns count of the answer that set it
	returned int64     // highest returns count announced
	variants map[int64]variantMark
	// available is the latest list Redis gave of the variants with stock
	// left; a variant that sells out since is taken off it.
	available []int64
}

type variantMark struct {
	at   time.Time
	seen int64
}

// NewMarks returns marks that lapse after ttl; ttl 0 turns marking off.
func NewMarks(ttl time.Duration, now func() time.Time) *Marks {
	return &Marks{ttl: ttl, now: now, sales: map[int64]*markedSale{}}
}

// SoldOut reports whether the sale is marked sold out.
func (m *Marks) SoldOut(itemID int64) bool {
	if m == nil || m.ttl <= 0 {
		return false
	}
	m.mu.RLock()
	s := m.sales[itemID]
	marked := s != nil && s.marked && m.now().Sub(s.at) < m.ttl
	m.mu.RUnlock()
	return marked
}

// Saw records a reserve answer: left is the stock left, returns the sale's
// count of returns when the script ran. It marks the sale sold out when
// nothing is left and no return has been announced since.
func (m *Marks) Saw(itemID, left, returns int64) {
	if m == nil || m.ttl <= 0 || left > 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sales[itemID]
	if s == nil {
		s = &markedSale{}
		m.sales[itemID] = s
	}
	if returns >= s.returned {
		s.marked, s.at, s.seen = true, m.now(), returns
	}
}

// Returned records that stock came back to the sale, as the returns-th
// return: any mark set from an older answer is cleared.
func (m *Marks) Returned(itemID, returns int64) {
	if m == nil || m.ttl <= 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sales[itemID]
	if s == nil {
		// Remember it even without a mark: an answer older than this return
		// may still be on its way.
		s = &markedSale{}
		m.sales[itemID] = s
	}
	s.returned = max(s.returned, returns)
	if s.marked && s.seen < returns {
		s.marked = false
	}
	for id, v := range s.variants {
		if v.seen < returns {
			delete(s.variants, id)
		}
	}
}

// VariantSoldOut reports whether the sale's variant is marked sold out and,
// if so, the variants that still have stock as far as this server knows:
// Redis's latest list, less every variant marked or seen sold out since.
func (m *Marks) VariantSoldOut(itemID, variantID int64) ([]int64, bool) {
	if m == nil || m.ttl <= 0 || variantID == 0 {
		return nil, false
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	s := m.sales[itemID]
	if s == nil {
		return nil, false
	}
	if !m.live(s, variantID) {
		return nil, false
	}
	out := make([]int64, 0, len(s.available))
	for _, id := range s.available {
		if !m.live(s, id) {
			out = append(out, id)
		}
	}
	return out, true
}

func (m *Marks) live(s *markedSale, variantID int64) bool {
	v, ok := s.variants[variantID]
	return ok && m.now().Sub(v.at) < m.ttl
}

// SawVariant records a sold-out answer for one variant: left is its stock
// left, returns the sale's count of returns when the script ran, available
// the variants that still had stock, which becomes the sale's latest list.
func (m *Marks) SawVariant(itemID, variantID, left, returns int64, available []int64) {
	if m == nil || m.ttl <= 0 || left > 0 || variantID == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.get(itemID)
	if returns < s.returned {
		return
	}
	if s.variants == nil {
		s.variants = map[int64]variantMark{}
	}
	s.variants[variantID] = variantMark{at: m.now(), seen: returns}
	s.available = slices.DeleteFunc(slices.Clone(available), func(id int64) bool { return id == variantID })
}

// Emptied records that a purchase took a variant's last unit: it is off the
// sale's list of variants with stock, though not marked (the next try asks
// Redis, whose answer names the variants left).
func (m *Marks) Emptied(itemID, variantID int64) {
	if m == nil || m.ttl <= 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.sales[itemID]; s != nil {
		s.available = slices.DeleteFunc(s.available, func(id int64) bool { return id == variantID })
	}
}

// get returns the sale's state, adding it; the caller holds the lock.
func (m *Marks) get(itemID int64) *markedSale {
	s := m.sales[itemID]
	if s == nil {
		s = &markedSale{}
		m.sales[itemID] = s
	}
	return s
}
