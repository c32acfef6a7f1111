package ratelimit

import "sync"

// Slots bounds what each client holds at once on this server, such as open
// event streams: a count per client key (ClientKey), not a rate. Each held
// thing is a goroutine and a connection for as long as the client likes, so
// one client could otherwise hold thousands. The count is per server: a
// client spread over servers by a load balancer may hold the cap on each,
// which bounds what it costs each.
type Slots struct {
	max  int
	mu   sync.Mutex
	open map[string]int
}

// NewSlots returns slots letting each key hold max at once.
func NewSlots(max int) *Slots { return &Slots{max: max, open: map[string]int{}} }

// Acquire takes one of key's slots; false when key holds them all.
func (s *Slots) Acquire(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open[key] >= s.max {
		return false
	}
	s.open[key]++
	return true
}

// Release gives back a slot Acquire took for key.
func (s *Slots) Release(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open[key]--; s.open[key] <= 0 {
		delete(s.open, key) // the map holds only clients with slots taken
	}
}
