package httpapi

import (
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/ratelimit"
)

// streamRetry is the Retry-After of a refused stream: streams free up when
// pages close, which no clock predicts; a few seconds spare the server a
// reconnect loop.
const streamRetry = 5

// streamCap bounds the event streams one client (an IPv4 address or an IPv6
// /64) holds open on this server (ratelimit.Slots).
type streamCap struct{ slots *ratelimit.Slots } // nil: no cap

func newStreamCap(max int) streamCap {
	if max <= 0 {
		return streamCap{}
	}
	return streamCap{ratelimit.NewSlots(max)}
}

// hold runs the stream with a slot of its client's, released when the
// stream ends, or answers 429 too_many_streams when the client holds them
// all.
func (s streamCap) hold(fail func(*gin.Context, error)) gin.HandlerFunc {
	return func(c *gin.Context) {
		if s.slots == nil {
			return
		}
		key := ratelimit.ClientKey(c.ClientIP())
		if !s.slots.Acquire(key) {
			c.Header("Retry-After", strconv.Itoa(streamRetry))
			fail(c, errTooManyStreams)
			return
		}
		defer s.slots.Release(key)
		c.Next()
	}
}
