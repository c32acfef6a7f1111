package httpapi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/token"
)

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
	if req.Token == nil || !a.guards.isAdminToken(*req.Token) {
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
