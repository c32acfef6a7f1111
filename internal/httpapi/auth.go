package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"math"
	"regexp"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/golang-jwt/jwt/v5"

	"github.com/seckill/seckill/internal/audit"
	"github.com/seckill/seckill/internal/ratelimit"
)

// SessionCookie carries the shopper's token for browsers.
const SessionCookie = "seckill_session"

var userIDPattern = regexp.MustCompile(`^[A-Za-z0-9_.@-]{1,64}$`)

// Tokens mints and checks shoppers' HS256 JWTs; sub is the user id. A shop's
// own login can mint the same tokens with the same secret.
type Tokens struct {
	secret []byte
	ttl    time.Duration
	now    func() time.Time
	parser *jwt.Parser
}

// NewTokens returns a minter/verifier with secret; tokens live for ttl.
func NewTokens(secret string, ttl time.Duration, now func() time.Time) *Tokens {
	return &Tokens{secret: []byte(secret), ttl: ttl, now: now, parser: jwt.NewParser(
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(now))}
}

// Issue returns a signed token for userID and its expiry.
func (t *Tokens) Issue(userID string) (string, time.Time, error) {
	now := t.now()
	exp := now.Add(t.ttl).Truncate(time.Second)
	claims := jwt.RegisteredClaims{Subject: userID, IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(exp)}
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(t.secret)
	return s, exp, err
}

var errBadToken = errors.New("invalid token")

// Verify returns the user id of a valid token. The algorithm is pinned to
// HS256 (no "none", no RS/HS confusion) and an expiry is required.
func (t *Tokens) Verify(token string) (string, error) {
	var claims shopperClaims
	_, err := t.parser.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return t.secret, nil })
	if err != nil {
		return "", errBadToken
	}
	if !userIDPattern.MatchString(claims.Sub) {
		return "", errBadToken
	}
	return claims.Sub, nil
}

// shopperClaims are the claims a shopper's token is checked on, as plain
// numbers: jwt.RegisteredClaims decodes each date and the audience through
// a custom unmarshaler, which was two thirds of a token's check in the
// purchase profile. Other claims a shop's login adds are ignored.
type shopperClaims struct {
	Sub string  `json:"sub"`
	Exp float64 `json:"exp"`
	Nbf float64 `json:"nbf"`
	Iat float64 `json:"iat"`
}

func numericDate(f float64) *jwt.NumericDate {
	if f == 0 {
		return nil
	}
	sec, frac := math.Modf(f)
	return jwt.NewNumericDate(time.Unix(int64(sec), int64(frac*1e9)))
}

func (c *shopperClaims) GetExpirationTime() (*jwt.NumericDate, error) { return numericDate(c.Exp), nil }
func (c *shopperClaims) GetNotBefore() (*jwt.NumericDate, error)      { return numericDate(c.Nbf), nil }
func (c *shopperClaims) GetIssuedAt() (*jwt.NumericDate, error)       { return numericDate(c.Iat), nil }
func (c *shopperClaims) GetIssuer() (string, error)                   { return "", nil }
func (c *shopperClaims) GetSubject() (string, error)                  { return c.Sub, nil }
func (c *shopperClaims) GetAudience() (jwt.ClaimStrings, error)       { return nil, nil }

const userKey = "seckill.user"

// adminSessionKey holds the session cookie an admin request came in with
// (none for the bearer token), so a long stream can ask whether it was
// signed out since.
const adminSessionKey = "seckill.admin_session"

// guards are the checks that run before handlers: sign-in, the admin, the
// Origin rule, rate limits, purchase tokens and the sold-out mark.
type guards struct {
	replier
	tokens       *Tokens
	adminDigest  [32]byte
	adminSess    adminSessions
	limiter      *ratelimit.Limiter
	rates        Rates
	purchaseTok  purchaseTokens
	admissionTok purchaseTokens
	requireToken bool
	front        Front    // its sold-out marks; nil: none
	reserved     *saleSet // sales whose purchases the reserve script rate-limits
	proofs       *proofs
	now          func() time.Time
}

func newGuards(rep replier, d Deps, purchaseTok, admissionTok purchaseTokens, reserved *saleSet, proofs *proofs) *guards {
	return &guards{replier: rep, tokens: d.Tokens, adminDigest: sha256.Sum256([]byte(d.AdminToken)),
		adminSess: newAdminSessions(string(d.Tokens.secret), d.AdminToken, d.Now, d.Revocations),
		limiter:   d.Limiter, rates: d.Rates, purchaseTok: purchaseTok, admissionTok: admissionTok,
		requireToken: d.RequirePurchaseToken, front: d.Front, reserved: reserved, proofs: proofs, now: d.Now}
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
	if tok := bearer(c.GetHeader("Authorization")); g.isAdminToken(tok) {
		actAs(c, audit.Fingerprint(g.tokens.secret, "token", tok))
		return
	}
	if cookie, err := c.Cookie(AdminCookie); err == nil {
		ok, err := g.adminSess.valid(c.Request.Context(), cookie)
		if err != nil {
			g.fail(c, err) // a signed-out session must not pass while the list is out of reach
			return
		}
		if ok {
			actAs(c, audit.Fingerprint(g.tokens.secret, "session", cookie))
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

// isAdminToken compares in constant time. Hashing both sides first keeps the
// comparison constant-time in the length too.
func (g *guards) isAdminToken(token string) bool {
	got := sha256.Sum256([]byte(token))
	return token != "" && subtle.ConstantTimeCompare(got[:], g.adminDigest[:]) == 1
}

func bearer(h string) string {
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}
