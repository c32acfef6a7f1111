package httpapi

import (
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
)

// Events hands out the dashboard's stream of snapshots (dashboard.Hub).
type Events interface {
	Subscribe() (<-chan []byte, func())
}

const ssePing = 15 * time.Second

// events streams dashboard snapshots as Server-Sent Events until the client
// leaves or the server shuts down. Snapshots are computed once per second by
// the hub, however many admins watch.
func (s *Server) events(c *gin.Context) {
	ch, stop := s.Events.Subscribe()
	defer stop()
	pump(s, c, ch, func(sse *sseStream, b []byte) { sse.sendRaw("stats", b) })
}

// pump streams each value from ch with send until the client leaves or the
// server shuts down, keeping an idle stream alive meanwhile.
func pump[T any](s *Server, c *gin.Context, ch <-chan T, send func(*sseStream, T)) {
	sse := startSSE(c)
	defer sse.stop()
	for {
		select {
		case <-c.Request.Context().Done():
			return
		case <-s.Stopping:
			return
		case v := <-ch:
			send(sse, v)
		case <-sse.ping.C:
			sse.keepAlive()
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
	h.Set("Cache-Control", "no-cache")
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
