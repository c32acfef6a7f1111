package room

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// Sale is a sale with a waiting room, as the watcher needs it.
type Sale struct {
	ID       int64
	Rules    Rules
	StartsAt time.Time
	EndsAt   time.Time
}

// Watcher ticks the room of every open sale that has one, on every server:
// admission is computed from the clock inside the script, so many servers
// ticking admit no faster than one, and the queue keeps moving however few
// shoppers ask. It keeps each room's latest standing and hands it to
// subscribers (the shoppers' live pages) whenever it changes, so a thousand
// waiting pages cost one Redis call per tick, not a thousand.
type Watcher struct {
	store  *Store
	list   func(ctx context.Context) ([]Sale, error)
	now    func() time.Time
	every  time.Duration
	relist time.Duration
	log    *slog.Logger

	mu    sync.Mutex
	rooms map[int64]*watched
	// wake asks Run to re-list now: a page subscribed to a room the watcher
	// does not know yet (a sale created moments ago) should not wait for the
	// next relist to hear of it.
	wake chan struct{}
	// ticked hears every standing a tick read (nil: nobody).
	ticked func(itemID int64, st Standing)
	// unpaid says what can still come back to a sold-out room (nil: never).
	unpaid *UnpaidUnits
}

// Live is a room's standing as the watcher hands it to live pages, with
// what MySQL adds once the room is sold out.
type Live struct {
	Standing
	// Unpaid is, while the room is sold out and the sale runs, the units
	// taken and not paid for (see UnpaidUnits.Of): what a cancel or the
	// payment timeout can still return; 0 makes the sell-out final. Nil
	// otherwise, or when MySQL cannot tell.
	Unpaid *int64
}

// UseUnpaid has the watcher add u's reading to a sold-out room, so live
// pages hear when the sell-out becomes final. Call it before Run.
func (w *Watcher) UseUnpaid(u *UnpaidUnits) { w.unpaid = u }

// OnTick has f hear every standing a tick reads, changed or not. Call it
// before Run.
func (w *Watcher) OnTick(f func(itemID int64, st Standing)) { w.ticked = f }

type watched struct {
	sale   Sale
	latest Live
	known  bool
	subs   map[chan Live]struct{}
}

// NewWatcher returns a watcher that ticks every interval and re-reads the
// list of sales with a room every relist.
func NewWatcher(store *Store, list func(ctx context.Context) ([]Sale, error), now func() time.Time,
	every, relist time.Duration, log *slog.Logger) *Watcher {
	return &Watcher{store: store, list: list, now: now, every: every, relist: relist, log: log,
		rooms: map[int64]*watched{}, wake: make(chan struct{}, 1)}
}

// Run ticks until ctx ends.
func (w *Watcher) Run(ctx context.Context) error {
	t := time.NewTicker(w.every)
	defer t.Stop()
	var listed time.Time
	for {
		if time.Since(listed) >= w.relist {
			if err := w.refresh(ctx); err != nil && ctx.Err() == nil {
				w.log.Warn("room watcher: cannot list sales", "err", err)
			} else {
				listed = time.Now()
			}
		}
		w.tickAll(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-w.wake:
			listed = time.Time{}
		}
	}
}

// refresh replaces the set of sales to watch, keeping subscribers.
func (w *Watcher) refresh(ctx context.Context) error {
	sales, err := w.list(ctx)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	keep := make(map[int64]bool, len(sales))
	for _, s := range sales {
		keep[s.ID] = true
		if r := w.rooms[s.ID]; r != nil {
			r.sale = s
		} else {
			w.rooms[s.ID] = &watched{sale: s, subs: map[chan Live]struct{}{}}
		}
	}
	for id, r := range w.rooms {
		if !keep[id] && len(r.subs) == 0 {
			delete(w.rooms, id)
		}
		if !keep[id] {
			w.unpaid.Forget(id) // no longer ticked: its reading would only go stale
		}
	}
	return nil
}

func (w *Watcher) tickAll(ctx context.Context) {
	w.mu.Lock()
	sales := make([]Sale, 0, len(w.rooms))
	for _, r := range w.rooms {
		if r.sale.ID != 0 {
			sales = append(sales, r.sale)
		}
	}
	w.mu.Unlock()
	for _, s := range sales {
		st, err := w.store.Tick(ctx, s.ID, w.now(), s.Rules)
		if err != nil {
			// A sale not warm yet is warmed by its first join or purchase.
			if !errors.Is(err, ErrNotWarmed) && ctx.Err() == nil {
				w.log.Warn("room watcher: tick failed", "item_id", s.ID, "err", err)
			}
			continue
		}
		if w.ticked != nil {
			w.ticked(s.ID, st)
		}
		w.publish(s.ID, w.live(s.ID, st))
	}
}

// live adds to st what can still come back to its room once sold out.
func (w *Watcher) live(itemID int64, st Standing) Live {
	if !st.SoldOut() || st.Ended {
		w.unpaid.Forget(itemID) // reopened or over: a later sell-out reads afresh
	}
	return Live{Standing: st, Unpaid: w.unpaid.Of(itemID, 0, st)}
}

// publish records st and passes it on if the room changed.
func (w *Watcher) publish(itemID int64, st Live) {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.rooms[itemID]
	if r == nil || (r.known && sameRoom(r.latest, st)) {
		return
	}
	r.latest, r.known = st, true
	for ch := range r.subs {
		select { // keep only the newest: a slow page skips to it
		case <-ch:
		default:
		}
		ch <- st
	}
}

func sameRoom(a, b Live) bool {
	return a.Opened == b.Opened && a.Ended == b.Ended && a.Paused == b.Paused && a.Admitted == b.Admitted && a.Early == b.Early &&
		a.Late == b.Late && a.StockLeft == b.StockLeft && a.Holding == b.Holding &&
		(a.Unpaid == nil) == (b.Unpaid == nil) && (a.Unpaid == nil || *a.Unpaid == *b.Unpaid)
}

// Subscribe returns the room's standings as they change, starting with the
// latest if there is one, and a function to stop.
func (w *Watcher) Subscribe(itemID int64) (<-chan Live, func()) {
	ch := make(chan Live, 1)
	w.mu.Lock()
	r := w.rooms[itemID]
	if r == nil {
		r = &watched{subs: map[chan Live]struct{}{}} // sale unknown yet: the next refresh fills it
		w.rooms[itemID] = r
	}
	if r.sale.ID == 0 {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
	r.subs[ch] = struct{}{}
	if r.known {
		ch <- r.latest
	}
	w.mu.Unlock()
	return ch, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(r.subs, ch)
	}
}
