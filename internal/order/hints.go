package order

import "sync"

// Hints tell this process's persisters which sales just queued orders, so a
// quiet stream is read at once instead of at the next sweep of every stream.
// Each persister reads its streams one by one (a Redis Cluster refuses one
// XREADGROUP over streams in different slots), so knowing where the work is
// keeps an idle server from polling every stream all the time. Orders queued
// by another server are that server's hint; a sweep finds any left over.
type Hints struct {
	mu   sync.Mutex
	subs []*hintSub
}

type hintSub struct {
	mu    sync.Mutex
	items map[int64]struct{}
	ready chan struct{} // holds one token while items is not empty
}

// NewHints returns hints nobody listens to yet.
func NewHints() *Hints { return &Hints{} }

// Queued says orders of the sale were just queued.
func (h *Hints) Queued(itemID int64) {
	if h == nil {
		return
	}
	h.mu.Lock()
	subs := h.subs
	h.mu.Unlock()
	for _, s := range subs {
		s.add(itemID)
	}
}

func (h *Hints) subscribe() *hintSub {
	s := &hintSub{items: map[int64]struct{}{}, ready: make(chan struct{}, 1)}
	if h != nil {
		h.mu.Lock()
		h.subs = append(h.subs, s)
		h.mu.Unlock()
	}
	return s
}

func (s *hintSub) add(itemID int64) {
	s.mu.Lock()
	s.items[itemID] = struct{}{}
	s.mu.Unlock()
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

// take returns the hinted sales and forgets them.
func (s *hintSub) take() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.items) == 0 {
		return nil
	}
	out := make([]int64, 0, len(s.items))
	for id := range s.items {
		out = append(out, id)
	}
	clear(s.items)
	return out
}
