package httpapi

import (
	"strconv"
	"sync"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/ratelimit"
)

// streamRetry is the Retry-After of a refused stream: streams free up when
// pages close, which no clock predicts; a few seconds spare the server a
// reconnect loop.
const streamRetry = 5

// streamCap bounds the event streams one client (an IPv4 address or an IPv6
// /64) holds open on this server: each open stream is a goroutine and a
// connection for as long as the client likes, so one client could otherwise
// hold thousands. The count is per server: a client spread over servers by
// a load balancer may hold the cap on each, which bounds what it costs each.
type streamCap struct {
	max  int // 0: no cap
	mu   sync.Mutex
	open map[string]int
}

func newStreamCap(max int) *streamCap { return &streamCap{max: max, open: map[string]int{}} }

// hold runs the stream with a slot of its client's, released when the
// stream ends, or answers 429 too_many_streams when the client holds them
// all.
func (s *streamCap) hold(fail func(*gin.Context, error)) gin.HandlerFunc {
	return func(c *gin.Context) {
		if s.max <= 0 {
			return
		}
		key := ratelimit.ClientKey(c.ClientIP())
		if !s.acquire(key) {
			c.Header("Retry-After", strconv.Itoa(streamRetry))
			fail(c, errTooManyStreams)
			return
		}
		defer s.release(key)
		c.Next()
	}
}

func (s *streamCap) acquire(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open[key] >= s.max {
		return false
	}
	s.open[key]++
	return true
}

func (s *streamCap) release(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open[key]--; s.open[key] <= 0 {
		delete(s.open, key) // the map holds only clients with streams open
	}
}
