package httpapi

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"
)

// pageSecurity are the headers every answer carries. The CSP allows no
// inline script or style: the pages load everything from /static. Images
// may also come from any https host: a sale's image_url may name one.
var pageSecurity = map[string]string{
	"Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; " +
		"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
	"X-Content-Type-Options": "nosniff",
	"X-Frame-Options":        "DENY",
	"Referrer-Policy":        "same-origin",
}

// securityValues is pageSecurity with canonical keys, built once. The value
// slices are shared by every answer; nothing appends to these headers.
var securityValues = func() http.Header {
	h := http.Header{}
	for k, v := range pageSecurity {
		h.Set(k, v)
	}
	return h
}()

func securityHeaders(c *gin.Context) {
	h := c.Writer.Header()
	for k, v := range securityValues {
		h[k] = v
	}
}

// Request ids are a random per-process prefix and a counter: unique across
// servers and restarts in practice, and cheap enough for every request.
var (
	requestIDPrefix = func() string {
		b := make([]byte, 4)
		rand.Read(b)
		return hex.EncodeToString(b) + "-"
	}()
	requestSeq atomic.Uint64
)

func newRequestID() string {
	return requestIDPrefix + strconv.FormatUint(requestSeq.Add(1), 16)
}

// requestLog gives every request an id (the caller's X-Request-ID when it is
// sane, else a new one), returns it in the answer, and logs one structured
// line per request. Tokens and bodies are never logged.
func requestLog(log *slog.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		id := c.GetHeader("X-Request-ID")
		if !saneRequestID(id) {
			id = newRequestID()
		}
		c.Writer.Header()["X-Request-Id"] = []string{id}
		start := time.Now()
		c.Next()
		status := c.Writer.Status()
		level := slog.LevelDebug // a storm of 202s and 410s is not news
		if status >= 500 {
			level = slog.LevelError
		}
		if !log.Enabled(c.Request.Context(), level) {
			return
		}
		log.Log(c.Request.Context(), level, "request", "request_id", id, "method", c.Request.Method,
			"route", c.FullPath(), "status", status, "ms", float64(time.Since(start).Microseconds())/1000,
			"client_ip", c.ClientIP())
	}
}

func saneRequestID(id string) bool {
	return id != "" && len(id) <= 64 && strings.IndexFunc(id, func(r rune) bool {
		return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-' || r == '_')
	}) < 0
}

// noStoreValue is shared by every answer that sets it; nothing appends.
var noStoreValue = []string{"no-store"}

// noStore keeps an answer that carries a token or a shopper's data out of
// every cache: a shared proxy's, and the browser's own (a shared computer's
// next user must not find it with the back button). It runs before the
// route's guards, so their refusals carry it too.
func noStore(c *gin.Context) { c.Writer.Header()["Cache-Control"] = noStoreValue }
