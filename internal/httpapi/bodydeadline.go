package httpapi

import (
	"errors"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/gin-gonic/gin"
)

// bodyDeadline gives a request that has a body d to send all of it: a
// client that sends its headers and then stalls would otherwise hold a
// connection and a handler forever. http.Server.ReadTimeout is no answer:
// it covers every request on the connection, and once a handler has read
// its body net/http keeps reading in the background to notice a client
// leaving, so the deadline would cancel long requests' contexts (the event
// streams'). This deadline is lifted as soon as the body is read, for the
// same reason. A stalled body answers 408 request_timeout (readBody), and
// the connection closes.
func bodyDeadline(d time.Duration) gin.HandlerFunc {
	return func(c *gin.Context) {
		if d <= 0 || c.Request.Body == nil || c.Request.Body == http.NoBody || c.Request.ContentLength == 0 {
			return
		}
		rc := http.NewResponseController(c.Writer)
		if err := rc.SetReadDeadline(time.Now().Add(d)); err != nil {
			return // not a real connection (a test's recorder): nothing stalls
		}
		c.Request.Body = &deadlineBody{ReadCloser: c.Request.Body, rc: rc}
	}
}

// deadlineBody lifts the read deadline once the body has been read to its
// end or failed.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && !b.done && !errors.Is(err, os.ErrDeadlineExceeded) {
		b.done = true
		b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// stalledBody says whether err is a body that did not arrive in time.
func stalledBody(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }
