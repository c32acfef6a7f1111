package httpapi_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/httpapi"
	"github.com/seckill/seckill/web"
)

// engine builds the router with no stores behind it: a request that gets
// past authentication to a handler would panic and answer 500.
func engine(t *testing.T, proxies ...string) *gin.Engine {
	t.Helper()
	return httpapi.New(httpapi.Deps{
		Web: web.FS, Clock: httpapi.Clock{Now: time.Now},
		Settings: httpapi.Settings{AdminToken: "the-admin-token-0123456789", JWTSecret: strings.Repeat("s", 32), SessionTTL: time.Hour, TrustedProxies: proxies},
	})
}

// TestEveryAdminRouteNeedsTheAdmin walks the router: any admin route a
// stranger reaches (today's or one added later) fails the test.
func TestEveryAdminRouteNeedsTheAdmin(t *testing.T) {
	t.Parallel()
	r := engine(t)
	open := map[string]bool{"POST /api/v1/admin/session": true, "DELETE /api/v1/admin/session": true}
	checked := 0
	for _, rt := range r.Routes() {
		if !strings.HasPrefix(rt.Path, "/api/v1/admin") || open[rt.Method+" "+rt.Path] {
			continue
		}
		for _, auth := range []string{"", "Bearer wrong", "Bearer " + strings.Repeat("s", 32), "Basic the-admin-token-0123456789"} {
			path := strings.ReplaceAll(rt.Path, ":id", "1")
			req := httptest.NewRequest(rt.Method, path, strings.NewReader(`{}`))
			if auth != "" {
				req.Header.Set("Authorization", auth)
			}
			req.AddCookie(&http.Cookie{Name: httpapi.AdminCookie, Value: "forged"})
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			// 401, or 403 when the forged cookie trips the CSRF check first.
			if w.Code != http.StatusUnauthorized && w.Code != http.StatusForbidden {
				t.Errorf("%s %s with %q: %d, want 401 or 403", rt.Method, rt.Path, auth, w.Code)
			}
		}
		checked++
	}
	if checked < 7 {
		t.Fatalf("walked only %d admin routes", checked)
	}
}

func TestSecurityHeadersAndRequestID(t *testing.T) {
	t.Parallel()
	r := engine(t)
	for _, path := range []string{"/", "/admin", "/static/app.css", "/api/v1/nope"} {
		req := httptest.NewRequest("GET", path, nil)
		req.Header.Set("X-Request-ID", "abc-123")
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		csp := w.Header().Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") ||
			!strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "img-src 'self' data: https:;") ||
			w.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: security headers %v", path, w.Header())
		}
		if w.Header().Get("X-Request-ID") != "abc-123" {
			t.Errorf("%s: request id %q, want the caller's", path, w.Header().Get("X-Request-ID"))
		}
	}
	req := httptest.NewRequest("GET", "/healthz", nil)
	req.Header.Set("X-Request-ID", "bad id with spaces and <html>")
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	if id := w.Header().Get("X-Request-ID"); id == "" || strings.Contains(id, " ") {
		t.Fatalf("unsafe request id echoed: %q", id)
	}
}

// TestClientIPIgnoresForgedHeaders: X-Forwarded-For counts only from a
// trusted proxy, and X-Real-IP never: a proxy that sets X-Forwarded-For may
// pass a client's own X-Real-IP on, which would let the client name the
// IP (and so the proof of work's network) its requests are counted at.
func TestClientIPIgnoresForgedHeaders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, header string
		proxies      []string
		want         string
	}{
		{"no trusted proxy", "X-Forwarded-For", nil, "192.0.2.7"},
		{"peer is a trusted proxy", "X-Forwarded-For", []string{"192.0.2.0/24"}, "203.0.113.9"},
		{"X-Real-IP from a trusted proxy", "X-Real-IP", []string{"192.0.2.0/24"}, "192.0.2.7"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := engine(t, tc.proxies...)
			r.GET("/__ip", func(c *gin.Context) { c.String(200, c.ClientIP()) })
			req := httptest.NewRequest("GET", "/__ip", nil)
			req.RemoteAddr = "192.0.2.7:5555"
			req.Header.Set(tc.header, "203.0.113.9")
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			if w.Body.String() != tc.want {
				t.Fatalf("client IP %q, want %q", w.Body.String(), tc.want)
			}
		})
	}
}

// TestPanicIsLoggedWithItsRequest: a handler that panics (here: the admin's
// stats with no store behind them) answers a bare 500, and the panic goes to
// the server's own logger with the request's id, not to stderr.
func TestPanicIsLoggedWithItsRequest(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	r := httpapi.New(httpapi.Deps{
		Web: web.FS, Clock: httpapi.Clock{Now: time.Now},
		Logger:   slog.New(slog.NewJSONHandler(&logs, nil)),
		Settings: httpapi.Settings{AdminToken: "the-admin-token-0123456789", JWTSecret: strings.Repeat("s", 32), SessionTTL: time.Hour},
	})
	req := httptest.NewRequest("GET", "/api/v1/admin/items/1/stats", nil)
	req.Header.Set("Authorization", "Bearer the-admin-token-0123456789")
	req.Header.Set("X-Request-ID", "panic-1")
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	if w.Code != http.StatusInternalServerError || !strings.Contains(w.Body.String(), `"code":"internal"`) {
		t.Fatalf("answer %d %s, want 500 internal", w.Code, w.Body)
	}
	if s := logs.String(); !strings.Contains(s, `"msg":"handler panicked"`) || !strings.Contains(s, `"request_id":"panic-1"`) {
		t.Fatalf("log %q: want the panic with the request id", s)
	}
}
