package httpapi

import (
	"net/http"
	"net/url"

	"github.com/gin-gonic/gin"
)

// sameOrigin protects cookie-authenticated state changes against cross-site
// request forgery, on top of the cookies' SameSite. Browsers send Origin on
// every non-GET fetch, so a state-changing request whose Origin names another
// host is refused, and one that rides on a cookie must carry an Origin at
// all. Requests with a bearer token carry their credential explicitly
// (programs, not browsers) and pass.
func (g *guards) sameOrigin(c *gin.Context) {
	switch c.Request.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return
	}
	origin := c.GetHeader("Origin")
	if origin != "" {
		if u, err := url.Parse(origin); err != nil || u.Host != c.Request.Host {
			g.fail(c, errCSRF)
		}
		return
	}
	if bearer(c.GetHeader("Authorization")) == "" && hasSessionCookie(c) {
		g.fail(c, errCSRF)
	}
}

func hasSessionCookie(c *gin.Context) bool {
	for _, name := range []string{SessionCookie, AdminCookie} {
		if _, err := c.Cookie(name); err == nil {
			return true
		}
	}
	return false
}
