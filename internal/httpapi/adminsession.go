package httpapi

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
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

// Revocations remembers admin sessions signed out before their expiry, for
// every server (revoke.Store).
type Revocations interface {
	Revoke(ctx context.Context, id string, ttl time.Duration) error
	Revoked(ctx context.Context, id string) (bool, error)
}

// revocationLeeway keeps a revocation a little past the session's expiry:
// another server whose clock runs behind still sees the session as live.
const revocationLeeway = time.Minute

// adminSessions signs dashboard sessions with a key derived from both the JWT
// secret and the admin token: shopper tokens (signed with the bare secret)
// never verify as admin sessions, and rotating the admin token ends every
// session. Each session has an id (jti), so signing out can revoke it.
type adminSessions struct {
	key     []byte
	now     func() time.Time
	revoked Revocations
}

func newAdminSessions(jwtSecret, adminToken string, now func() time.Time, revoked Revocations) adminSessions {
	mac := hmac.New(sha256.New, []byte(jwtSecret))
	mac.Write([]byte("seckill admin session\x00" + adminToken))
	return adminSessions{key: mac.Sum(nil), now: now, revoked: revoked}
}

func (a adminSessions) issue() (string, time.Time, error) {
	exp := a.now().Add(adminSessionTTL).Truncate(time.Second)
	claims := jwt.RegisteredClaims{Subject: "admin", ID: rand.Text(), ExpiresAt: jwt.NewNumericDate(exp),
		IssuedAt: jwt.NewNumericDate(a.now())}
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(a.key)
	return s, exp, err
}

// parse returns the claims of a well-signed, unexpired session with an id;
// a session from before sessions had ids cannot be revoked, so it is refused.
func (a adminSessions) parse(token string) (jwt.RegisteredClaims, bool) {
	var claims jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return a.key, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}), jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(a.now), jwt.WithSubject("admin"))
	return claims, err == nil && claims.ID != ""
}

// valid says whether token is a live session: well signed, unexpired and
// not signed out. It returns the revocation list's error, if it cannot be
// read: the caller refuses the session then.
func (a adminSessions) valid(ctx context.Context, token string) (bool, error) {
	claims, ok := a.parse(token)
	if !ok {
		return false, nil
	}
	revoked, err := a.revoked.Revoked(ctx, claims.ID)
	return err == nil && !revoked, err
}

// revoke signs out the session token names, if it is one, on every server
// until it expires.
func (a adminSessions) revoke(ctx context.Context, token string) error {
	claims, ok := a.parse(token)
	if !ok {
		return nil // nothing a server would accept
	}
	return a.revoked.Revoke(ctx, claims.ID, claims.ExpiresAt.Sub(a.now())+revocationLeeway)
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

// adminLogout revokes the session in the cookie, on every server, then
// clears the cookie: a copy of the cookie (a proxy's log, a stolen laptop's
// profile) stops working at once, not 12 hours later. It needs no valid
// session, as signing out twice is harmless.
func (a sessionAPI) adminLogout(c *gin.Context) {
	if cookie, err := c.Cookie(AdminCookie); err == nil {
		if err := a.guards.adminSess.revoke(c.Request.Context(), cookie); err != nil {
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
