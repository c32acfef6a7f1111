package token

import (
	"errors"
	"math"
	"regexp"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// ErrInvalid is a session token that is badly signed, expired or names no
// valid user id.
var ErrInvalid = errors.New("invalid token")

var userIDPattern = regexp.MustCompile(`^[A-Za-z0-9_.@-]{1,64}$`)

// ValidUser says whether id may be a shopper's user id: 1-64 characters of
// A-Z a-z 0-9 _ . @ -.
func ValidUser(id string) bool { return userIDPattern.MatchString(id) }

// Session mints and checks shoppers' HS256 JWTs; sub is the user id. A
// shop's own login can mint the same tokens with the same secret.
type Session struct {
	secret []byte
	ttl    time.Duration
	now    func() time.Time
	parser *jwt.Parser
}

// NewSession returns a minter/verifier with secret; tokens live for ttl.
func NewSession(secret string, ttl time.Duration, now func() time.Time) *Session {
	return &Session{secret: []byte(secret), ttl: ttl, now: now, parser: jwt.NewParser(
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(now))}
}

// TTL is how long a session token lives.
func (t *Session) TTL() time.Duration { return t.ttl }

// Issue returns a signed token for userID and its expiry, or the signer's
// error.
func (t *Session) Issue(userID string) (string, time.Time, error) {
	now := t.now()
	exp := now.Add(t.ttl).Truncate(time.Second)
	claims := jwt.RegisteredClaims{Subject: userID, IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(exp)}
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(t.secret)
	return s, exp, err
}

// Verify returns the user id of a valid token, or ErrInvalid. The algorithm
// is pinned to HS256 (no "none", no RS/HS confusion) and an expiry is
// required.
func (t *Session) Verify(token string) (string, error) {
	var claims shopperClaims
	_, err := t.parser.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return t.secret, nil })
	if err != nil {
		return "", ErrInvalid
	}
	if !ValidUser(claims.Sub) {
		return "", ErrInvalid
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
