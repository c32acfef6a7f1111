package httpapi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/token"
)

// sessionAPI signs shoppers (demo login) and admins (the dashboard) in and
// out.
type sessionAPI struct {
	replier
	guards    *guards // the admin token and sessions
	tokens    *token.Session
	demoLogin bool
	cookies   cookieRules
}

// cookieRules are how session cookies are set.
type cookieRules struct {
	secure bool // Secure even over plain HTTP: behind a proxy that ends TLS
}

// secureFor says whether cookies must be Secure for this request.
func (r cookieRules) secureFor(c *gin.Context) bool { return r.secure || c.Request.TLS != nil }

// login is the demo sign-in: anyone may be any user id. Shops turn it off
// (SECKILL_DEMO_LOGIN=false) and mint tokens from their own login instead.
func (a sessionAPI) login(c *gin.Context) {
	if !a.demoLogin {
		a.fail(c, errNoDemoLogin)
		return
	}
	var req struct {
		UserID *string `json:"user_id"`
	}
	if err := decode(c, &req, false); err != nil {
		a.fail(c, err)
		return
	}
	if req.UserID == nil || !token.ValidUser(*req.UserID) {
		a.fail(c, invalid("user_id", "user_id must be 1-64 characters of A-Z a-z 0-9 _ . @ -"))
		return
	}
	tok, exp, err := a.tokens.Issue(*req.UserID)
	if err != nil {
		a.fail(c, err)
		return
	}
	c.SetSameSite(http.SameSiteLaxMode)
	c.SetCookie(SessionCookie, tok, int(a.tokens.TTL().Seconds()), "/", "", a.cookies.secureFor(c), true)
	c.JSON(http.StatusOK, gin.H{"token": tok, "user_id": *req.UserID, "expires_at": exp.UTC()})
}

// whoami tells the pages who is signed in (the cookie is HttpOnly, so
// scripts cannot read it).
func (a sessionAPI) whoami(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{"user_id": userOf(c)})
}

// AdminCookie carries a signed admin session for the dashboard. It holds no
// secret itself: the admin token is checked once at sign-in.
const AdminCookie = "seckill_admin"

// adminLogin exchanges the admin token for an HttpOnly session cookie, so
// the dashboard never keeps the token in the page, the URL or storage.
func (a sessionAPI) adminLogin(c *gin.Context) {
	var req struct {
		Token *string `json:"token"`
	}
	if err := decode(c, &req, false); err != nil {
		a.fail(c, err)
		return
	}
	if req.Token == nil || !a.guards.adminSess.IsToken(*req.Token) {
		a.fail(c, errWrongAdmin)
		return
	}
	tok, exp, err := a.guards.adminSess.Issue()
	if err != nil {
		a.fail(c, err)
		return
	}
	c.SetSameSite(http.SameSiteStrictMode)
	c.SetCookie(AdminCookie, tok, int(token.AdminTTL.Seconds()), "/", "", a.cookies.secureFor(c), true)
	c.JSON(http.StatusOK, gin.H{"expires_at": exp.UTC()})
}

func (a sessionAPI) adminSessionInfo(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"admin": true}) }

// adminLogout revokes the session in the cookie, on every server, then
// clears the cookie: a copy of the cookie (a proxy's log, a stolen laptop's
// profile) stops working at once, not 12 hours later. It needs no valid
// session, as signing out twice is harmless.
func (a sessionAPI) adminLogout(c *gin.Context) {
	if cookie, err := c.Cookie(AdminCookie); err == nil {
		if err := a.guards.adminSess.Revoke(c.Request.Context(), cookie); err != nil {
			a.fail(c, err)
			return
		}
	}
	a.logout(AdminCookie)(c)
}

// logout clears a session cookie; it is idempotent and needs no session.
func (a sessionAPI) logout(name string) gin.HandlerFunc {
	return func(c *gin.Context) {
		c.SetSameSite(http.SameSiteLaxMode)
		c.SetCookie(name, "", -1, "/", "", a.cookies.secureFor(c), true)
		c.Status(http.StatusNoContent)
	}
}
