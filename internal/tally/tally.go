// Package tally counts, per sale, what a post-sale report needs and only a
// server's memory or Redis decides: purchases the admission gate shed,
// purchases answered 429, waiting-room joins and admissions. Counting is an
// atomic add in memory (no allocation once a sale has been seen); each
// server adds its counts to MySQL's sale_counters every few seconds and when
// it stops, so the figures outlive the server and the sale's Redis keys.
//
// A crash loses what was counted since the last flush (at most one flush
// interval of that server's counts). The levels read from Redis (joins,
// admissions) are stored as the highest seen, not summed, since every server
// sees the same room; they lose nothing while another server or a later
// look still sees the room.
package tally

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"gorm.io/gorm"
)

// Kind is one counter of a sale.
type Kind int

// The counters. Summed kinds are events this server saw; level kinds are
// running totals Redis keeps (see Set.Level).
const (
	Shed        Kind = iota // purchases the admission gate turned away (503)
	RateLimited             // purchases answered 429
	RoomJoins               // level: shoppers who joined the waiting room
	RoomAdmits              // level: shoppers the waiting room admitted
	numKinds
)

// names are the counters' names in sale_counters.
var names = [numKinds]string{"shed", "rate_limited", "room_joins", "room_admissions"}

func (k Kind) String() string { return names[k] }

func (k Kind) level() bool { return k >= RoomJoins }

// maxSales bounds the sales one server counts between flushes: purchases
// of made-up sale ids are rate limited too, and must not grow memory.
const maxSales = 4096

// sale is one sale's counters. written is, for level kinds, the value last
// stored, so an unchanged level is not written again.
type sale struct {
	n       [numKinds]atomic.Int64
	written [numKinds]int64
	idle    int // flushes in a row that found nothing new
}

// Set is one server's counters of every sale it has seen lately.
type Set struct {
	db      *gorm.DB
	log     *slog.Logger
	mu      sync.RWMutex // the write lock only to add a sale or to flush
	sales   map[int64]*sale
	dropped atomic.Int64
}

// New returns an empty set that flushes to db.
func New(db *gorm.DB, log *slog.Logger) *Set {
	return &Set{db: db, log: log, sales: map[int64]*sale{}}
}

// Add counts one event of kind k for the sale. A nil Set counts nothing.
func (s *Set) Add(itemID int64, k Kind) { s.add(itemID, k, 1) }

// add counts n events of a summed kind.
func (s *Set) add(itemID int64, k Kind, n int64) { s.count(itemID, k, n, addTo) }

// Level records that the sale's running total of kind k was seen at v;
// the highest seen is kept.
func (s *Set) Level(itemID int64, k Kind, v int64) { s.count(itemID, k, v, raise) }

// count applies op with v to the sale's counter of kind k under the read
// lock, or under the write lock when the sale is first seen. op is a plain
// function, not a closure, so counting allocates nothing.
func (s *Set) count(itemID int64, k Kind, v int64, op func(*atomic.Int64, int64)) {
	if s == nil || itemID <= 0 {
		return
	}
	s.mu.RLock()
	c := s.sales[itemID]
	if c != nil {
		op(&c.n[k], v)
	}
	s.mu.RUnlock()
	if c == nil {
		s.slow(itemID, k, v, op)
	}
}

func addTo(a *atomic.Int64, n int64) { a.Add(n) }

func raise(a *atomic.Int64, v int64) {
	for cur := a.Load(); v > cur && !a.CompareAndSwap(cur, v); cur = a.Load() {
	}
}

// slow adds a sale first seen, under the write lock, and counts.
func (s *Set) slow(itemID int64, k Kind, v int64, op func(*atomic.Int64, int64)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.sales[itemID]
	if c == nil {
		if len(s.sales) >= maxSales {
			s.dropped.Add(1)
			return
		}
		c = &sale{}
		s.sales[itemID] = c
	}
	op(&c.n[k], v)
}

// Run flushes every interval, and once more when ctx ends.
func (s *Set) Run(ctx context.Context, every time.Duration) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := s.Flush(fctx); err != nil {
				s.log.Error("sale counters lost at shutdown", "err", err)
			}
			return nil
		case <-t.C:
			if err := s.Flush(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("sale counters not flushed; kept for the next try", "err", err)
			}
		}
	}
}

// row is one counter's change for MySQL.
type row struct {
	itemID int64
	kind   Kind
	n      int64
}

// Flush adds this server's counts since the last flush to MySQL and raises
// the stored levels. If MySQL refuses, the counts are kept for the next
// flush. It returns MySQL's error.
func (s *Set) Flush(ctx context.Context) error {
	rows := s.take()
	if n := s.dropped.Swap(0); n > 0 {
		s.log.Warn("sale counters: too many sales at once; counts dropped", "dropped", n)
	}
	if len(rows) == 0 {
		return nil
	}
	if err := s.write(ctx, rows); err != nil {
		s.giveBack(rows)
		return err
	}
	return nil
}

// take collects what changed and forgets sales idle for two flushes. It
// holds the write lock, so no add is in flight on a sale it forgets.
func (s *Set) take() []row {
	s.mu.Lock()
	defer s.mu.Unlock()
	var rows []row
	for id, c := range s.sales {
		found := false
		for k := range numKinds {
			n := s.changed(c, k)
			if n != 0 {
				rows, found = append(rows, row{id, k, n}), true
			}
		}
		if c.idle = c.idle + 1; found {
			c.idle = 0
		}
		if c.idle >= 2 {
			delete(s.sales, id)
		}
	}
	return rows
}

// changed is a summed kind's count since the last flush (reset to zero), or
// a level kind's value if it rose since the last write.
func (s *Set) changed(c *sale, k Kind) int64 {
	if !k.level() {
		return c.n[k].Swap(0)
	}
	v := c.n[k].Load()
	if v <= c.written[k] {
		return 0
	}
	c.written[k] = v
	return v
}

// giveBack restores counts a failed write took.
func (s *Set) giveBack(rows []row) {
	for _, r := range rows {
		if r.kind.level() {
			s.mu.Lock()
			if c := s.sales[r.itemID]; c != nil {
				c.written[r.kind] = 0
			}
			s.mu.Unlock()
			s.Level(r.itemID, r.kind, r.n)
			continue
		}
		s.add(r.itemID, r.kind, r.n)
	}
}

func (s *Set) write(ctx context.Context, rows []row) error {
	var sums, levels []any
	for _, r := range rows {
		if r.kind.level() {
			levels = append(levels, r.itemID, names[r.kind], r.n)
		} else {
			sums = append(sums, r.itemID, names[r.kind], r.n)
		}
	}
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := upsert(tx, sums, "n + VALUES(n)"); err != nil {
			return err
		}
		return upsert(tx, levels, "GREATEST(n, VALUES(n))")
	})
}

func upsert(tx *gorm.DB, args []any, update string) error {
	if len(args) == 0 {
		return nil
	}
	q := "INSERT INTO sale_counters (item_id, name, n) VALUES (?, ?, ?)"
	for range len(args)/3 - 1 {
		q += ", (?, ?, ?)"
	}
	if err := tx.Exec(q+" ON DUPLICATE KEY UPDATE n = "+update, args...).Error; err != nil {
		return fmt.Errorf("flush sale counters: %w", err)
	}
	return nil
}

// Counts is what MySQL holds for one sale, by counter name.
type Counts map[string]int64

// Of returns the count of kind k (0 if never counted).
func (c Counts) Of(k Kind) int64 { return c[names[k]] }

// Read returns the sale's stored counters.
func Read(ctx context.Context, db *gorm.DB, itemID int64) (Counts, error) {
	var rows []struct {
		Name string
		N    int64
	}
	err := db.WithContext(ctx).Table("sale_counters").Select("name, n").Where("item_id = ?", itemID).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("read counters of sale %d: %w", itemID, err)
	}
	out := Counts{}
	for _, r := range rows {
		out[r.Name] = r.N
	}
	return out, nil
}
