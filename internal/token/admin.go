package token

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// AdminTTL is how long a dashboard session lives.
const AdminTTL = 12 * time.Hour

// Revocations remembers admin sessions signed out before their expiry, for
// every server (revoke.Store).
type Revocations interface {
	Revoke(ctx context.Context, id string, ttl time.Duration) error
	Revoked(ctx context.Context, id string) (bool, error)
}

// revocationLeeway keeps a revocation a little past the session's expiry:
// another server whose clock runs behind still sees the session as live.
const revocationLeeway = time.Minute

// Admin signs dashboard sessions with a key derived from both the JWT
// secret and the admin token: shopper tokens (signed with the bare secret)
// never verify as admin sessions, and rotating the admin token ends every
// session. Each session has an id (jti), so signing out can revoke it.
type Admin struct {
	key     []byte
	digest  [32]byte // of the admin token, for IsToken
	now     func() time.Time
	revoked Revocations
}

// NewAdmin returns the admin sessions of a server whose JWT secret is
// secret and admin token adminToken, remembering sign-outs in revoked.
func NewAdmin(secret, adminToken string, now func() time.Time, revoked Revocations) Admin {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte("seckill admin session\x00" + adminToken))
	return Admin{key: mac.Sum(nil), digest: sha256.Sum256([]byte(adminToken)), now: now, revoked: revoked}
}

// IsToken says whether tok is the admin token, in constant time. Hashing
// both sides first keeps the comparison constant-time in the length too.
func (a Admin) IsToken(tok string) bool {
	got := sha256.Sum256([]byte(tok))
	return tok != "" && subtle.ConstantTimeCompare(got[:], a.digest[:]) == 1
}

// Issue returns a new session and its expiry, or the signer's error.
func (a Admin) Issue() (string, time.Time, error) {
	exp := a.now().Add(AdminTTL).Truncate(time.Second)
	claims := jwt.RegisteredClaims{Subject: "admin", ID: rand.Text(), ExpiresAt: jwt.NewNumericDate(exp),
		IssuedAt: jwt.NewNumericDate(a.now())}
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(a.key)
	return s, exp, err
}

// parse returns the claims of a well-signed, unexpired session with an id;
// a session from before sessions had ids cannot be revoked, so it is refused.
func (a Admin) parse(token string) (jwt.RegisteredClaims, bool) {
	var claims jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return a.key, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}), jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(a.now), jwt.WithSubject("admin"))
	return claims, err == nil && claims.ID != ""
}

// Valid says whether token is a live session: well signed, unexpired and
// not signed out. It returns the revocation list's error, if it cannot be
// read: the caller refuses the session then.
func (a Admin) Valid(ctx context.Context, token string) (bool, error) {
	claims, ok := a.parse(token)
	if !ok {
		return false, nil
	}
	revoked, err := a.revoked.Revoked(ctx, claims.ID)
	return err == nil && !revoked, err
}

// Revoke signs out the session token names, if it is one, on every server
// until it expires; it returns the revocation list's error.
func (a Admin) Revoke(ctx context.Context, token string) error {
	claims, ok := a.parse(token)
	if !ok {
		return nil // nothing a server would accept
	}
	return a.revoked.Revoke(ctx, claims.ID, claims.ExpiresAt.Sub(a.now())+revocationLeeway)
}
