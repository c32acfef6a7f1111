package httpapi

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
)

// pageSecurity are the headers every answer carries. The CSP allows no
// inline script or style: the pages load everything from /static.
var pageSecurity = map[string]string{
	"Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
		"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
	"X-Content-Type-Options": "nosniff",
	"X-Frame-Options":        "DENY",
	"Referrer-Policy":        "same-origin",
}

func securityHeaders(c *gin.Context) {
	h := c.Writer.Header()
	for k, v := range pageSecurity {
		h.Set(k, v)
	}
}

const requestIDKey = "seckill.request_id"

// requestLog gives every request an id (the caller's X-Request-ID when it is
// sane, else a new one), returns it in the answer, and logs one structured
// line per request. Tokens and bodies are never logged.
func requestLog(log *slog.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		id := c.GetHeader("X-Request-ID")
		if !saneRequestID(id) {
			b := make([]byte, 8)
			rand.Read(b)
			id = hex.EncodeToString(b)
		}
		c.Set(requestIDKey, id)
		c.Header("X-Request-ID", id)
		start := time.Now()
		c.Next()
		status := c.Writer.Status()
		level := slog.LevelDebug // a storm of 202s and 410s is not news
		if status >= 500 {
			level = slog.LevelError
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
