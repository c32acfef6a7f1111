package httpapi

import (
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/audit"
	"github.com/seckill/seckill/internal/ratelimit"
	"github.com/seckill/seckill/internal/token"
)

// SessionCookie carries the shopper's token for browsers.
const SessionCookie = "seckill_session"

const userKey = "seckill.user"

// adminSessionKey holds the session cookie an admin request came in with
// (none for the bearer token), so a long stream can ask whether it was
// signed out since.
const adminSessionKey = "seckill.admin_session"

// guards are the checks that run before handlers: sign-in, the admin, the
// Origin rule, rate limits, purchase tokens and the sold-out mark.
type guards struct {
	replier
	tokens       *token.Session
	secret       []byte // the JWT secret: keys the audit log's fingerprints
	adminSess    token.Admin
	limiter      *ratelimit.Limiter
	rates        Rates
	purchaseTok  token.Purchase
	admissionTok token.Purchase
	requireToken bool
	front        Front // its sold-out marks; nil: none
	proofs       *proofs
	now          func() time.Time
}

func newGuards(rep replier, d Deps, purchaseTok, admissionTok token.Purchase, proofs *proofs) *guards {
	return &guards{replier: rep, tokens: token.NewSession(d.JWTSecret, d.SessionTTL, orNow(d.Now)), secret: []byte(d.JWTSecret),
		adminSess: token.NewAdmin(d.JWTSecret, d.AdminToken, d.Now, d.Revocations),
		limiter:   d.Limiter, rates: d.Rates, purchaseTok: purchaseTok, admissionTok: admissionTok,
		requireToken: d.RequirePurchaseToken, front: d.Front, proofs: proofs, now: d.Now}
}

// shopper requires a valid token from the Authorization header or, failing
// that, the session cookie.
func (g *guards) shopper(c *gin.Context) {
	token := bearer(c.GetHeader("Authorization"))
	if token == "" {
		token, _ = c.Cookie(SessionCookie)
	}
	if token == "" {
		g.fail(c, errSignIn)
		return
	}
	user, err := g.tokens.Verify(token)
	if err != nil {
		g.fail(c, errSessionExpired)
		return
	}
	c.Set(userKey, user)
}

func userOf(c *gin.Context) string { return c.GetString(userKey) }

// admin requires the admin token as a bearer token, or the dashboard's
// session cookie, unless that session was signed out. The request's
// context then names the admin, by a fingerprint of the credential, and the
// request id, for the audit log.
func (g *guards) admin(c *gin.Context) {
	if tok := bearer(c.GetHeader("Authorization")); g.adminSess.IsToken(tok) {
		actAs(c, audit.Fingerprint(g.secret, "token", tok))
		return
	}
	if cookie, err := c.Cookie(AdminCookie); err == nil {
		ok, err := g.adminSess.Valid(c.Request.Context(), cookie)
		if err != nil {
			g.fail(c, err) // a signed-out session must not pass while the list is out of reach
			return
		}
		if ok {
			actAs(c, audit.Fingerprint(g.secret, "session", cookie))
			c.Set(adminSessionKey, cookie)
			return
		}
	}
	g.fail(c, errAdminOnly)
}

// actAs puts who acts, and the id requestLog gave the request, in the
// request's context, where the services find them.
func actAs(c *gin.Context, who string) {
	id := c.Writer.Header().Get("X-Request-Id")
	c.Request = c.Request.WithContext(audit.WithActor(c.Request.Context(), who, id))
}

func bearer(h string) string {
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}
