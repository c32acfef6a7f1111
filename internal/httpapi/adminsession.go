package httpapi

import (
	"crypto/hmac"
	"crypto/sha256"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/golang-jwt/jwt/v5"
)

// AdminCookie carries a signed admin session for the dashboard. It holds no
// secret itself: the admin token is checked once at sign-in.
const AdminCookie = "seckill_admin"

const adminSessionTTL = 12 * time.Hour

// adminSessions signs dashboard sessions with a key derived from both the JWT
// secret and the admin token: shopper tokens (signed with the bare secret)
// never verify as admin sessions, and rotating the admin token ends every
// session.
type adminSessions struct {
	key []byte
	now func() time.Time
}

func newAdminSessions(jwtSecret, adminToken string, now func() time.Time) adminSessions {
	mac := hmac.New(sha256.New, []byte(jwtSecret))
	mac.Write([]byte("seckill admin session\x00" + adminToken))
	return adminSessions{key: mac.Sum(nil), now: now}
}

func (a adminSessions) issue() (string, time.Time, error) {
	exp := a.now().Add(adminSessionTTL).Truncate(time.Second)
	claims := jwt.RegisteredClaims{Subject: "admin", ExpiresAt: jwt.NewNumericDate(exp), IssuedAt: jwt.NewNumericDate(a.now())}
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(a.key)
	return s, exp, err
}

func (a adminSessions) valid(token string) bool {
	var claims jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return a.key, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}), jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(a.now), jwt.WithSubject("admin"))
	return err == nil
}

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
	tok, exp, err := a.guards.adminSess.issue()
	if err != nil {
		a.fail(c, err)
		return
	}
	c.SetSameSite(http.SameSiteStrictMode)
	c.SetCookie(AdminCookie, tok, int(adminSessionTTL.Seconds()), "/", "", a.cookies.secureFor(c), true)
	c.JSON(http.StatusOK, gin.H{"expires_at": exp.UTC()})
}

func (a sessionAPI) adminSessionInfo(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"admin": true}) }

// logout clears a session cookie; it is idempotent and needs no session.
func (a sessionAPI) logout(name string) gin.HandlerFunc {
	return func(c *gin.Context) {
		c.SetSameSite(http.SameSiteLaxMode)
		c.SetCookie(name, "", -1, "/", "", a.cookies.secureFor(c), true)
		c.Status(http.StatusNoContent)
	}
}
