package httpapi

import (
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
	h := c.Writer.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // proxies must not buffer the stream
	c.Status(http.StatusOK)
	io.WriteString(c.Writer, "retry: 2000\n\n")
	c.Writer.Flush()
	ping := time.NewTicker(ssePing)
	defer ping.Stop()
	for {
		select {
		case <-c.Request.Context().Done():
			return
		case <-s.Stopping:
			return
		case b := <-ch:
			io.WriteString(c.Writer, "event: stats\ndata: ")
			c.Writer.Write(b)
			io.WriteString(c.Writer, "\n\n")
			c.Writer.Flush()
		case <-ping.C:
			io.WriteString(c.Writer, ": ping\n\n")
			c.Writer.Flush()
		}
	}
}
