package httpapi

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

// login is the demo sign-in: anyone may be any user id. Shops turn it off
// (SECKILL_DEMO_LOGIN=false) and mint tokens from their own login instead.
func (s *Server) login(c *gin.Context) {
	if !s.DemoLogin {
		writeError(c, apiErr(http.StatusNotFound, "not_found", "demo login is turned off"))
		return
	}
	var req struct {
		UserID *string `json:"user_id"`
	}
	if err := decode(c, &req, false); err != nil {
		writeError(c, err)
		return
	}
	if req.UserID == nil || !userIDPattern.MatchString(*req.UserID) {
		writeError(c, invalid("user_id", "user_id must be 1-64 characters of A-Z a-z 0-9 _ . @ -"))
		return
	}
	token, exp, err := s.tokens.Issue(*req.UserID)
	if err != nil {
		writeError(c, err)
		return
	}
	c.SetSameSite(http.SameSiteLaxMode)
	c.SetCookie(SessionCookie, token, int(s.tokens.ttl.Seconds()), "/", "", s.secure(c), true)
	c.JSON(http.StatusOK, gin.H{"token": token, "user_id": *req.UserID, "expires_at": exp.UTC()})
}

// whoami tells the pages who is signed in (the cookie is HttpOnly, so
// scripts cannot read it).
func (s *Server) whoami(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{"user_id": userOf(c)})
}
