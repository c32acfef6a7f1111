package httpapi

import (
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
)

const ssePing = 15 * time.Second

// sseStreams are the server's event streams: each ends when its client
// leaves or the server shuts down (stopping is closed).
type sseStreams struct{ stopping <-chan struct{} }

// pump streams each value from ch with send until the client leaves or the
// server shuts down, keeping an idle stream alive meanwhile.
func pump[T any](streams sseStreams, c *gin.Context, ch <-chan T, send func(*sseStream, T)) {
	pumpWhile(streams, c, ch, send, nil)
}

// aliveEvery is how often pumpWhile asks whether its stream may go on.
const aliveEvery = 5 * time.Second

// pumpWhile is pump for a stream whose right to go on can lapse (an admin
// session signed out elsewhere): alive is asked at most every aliveEvery,
// and a false ends the stream.
func pumpWhile[T any](streams sseStreams, c *gin.Context, ch <-chan T, send func(*sseStream, T), alive func() bool) {
	sse := startSSE(c)
	defer sse.stop()
	checked := time.Now()
	for {
		select {
		case <-c.Request.Context().Done():
			return
		case <-streams.stopping:
			return
		case v := <-ch:
			send(sse, v)
		case <-sse.ping.C:
			sse.keepAlive()
		}
		if alive != nil && time.Since(checked) >= aliveEvery {
			if !alive() {
				return
			}
			checked = time.Now()
		}
	}
}

// sseStream writes one Server-Sent Events response.
type sseStream struct {
	c    *gin.Context
	ping *time.Ticker // a comment every ssePing keeps proxies from closing an idle stream
}

func startSSE(c *gin.Context) *sseStream {
	h := c.Writer.Header()
	h.Set("Content-Type", "text/event-stream")
	if h.Get("Cache-Control") == "" { // a private stream has no-store already
		h.Set("Cache-Control", "no-cache")
	}
	h.Set("X-Accel-Buffering", "no") // proxies must not buffer the stream
	c.Status(http.StatusOK)
	io.WriteString(c.Writer, "retry: 2000\n\n")
	c.Writer.Flush()
	return &sseStream{c: c, ping: time.NewTicker(ssePing)}
}

func (s *sseStream) stop() { s.ping.Stop() }

func (s *sseStream) sendRaw(event string, data []byte) {
	io.WriteString(s.c.Writer, "event: "+event+"\ndata: ")
	s.c.Writer.Write(data)
	io.WriteString(s.c.Writer, "\n\n")
	s.c.Writer.Flush()
}

func (s *sseStream) send(event string, v any) {
	b, err := json.Marshal(v)
	if err == nil {
		s.sendRaw(event, b)
	}
}

func (s *sseStream) keepAlive() {
	io.WriteString(s.c.Writer, ": ping\n\n")
	s.c.Writer.Flush()
}
