package httpapi

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
)

// PurchaseTokenHeader carries the purchase token on POST .../purchase.
const PurchaseTokenHeader = "X-Purchase-Token"

// purchaseTokens are short-lived HMACs over (shopper, sale, expiry). They are
// only issued from the sale's opening second, by the server's clock, so the
// purchase endpoint cannot be scripted before the sale opens, whatever clock
// a bot keeps.
type purchaseTokens struct {
	key []byte
	ttl time.Duration
}

// Token kinds: each has a key of its own derived from the JWT secret, so no
// JWT verifies as a token and no purchase token as an admission.
const (
	purchaseKind  = "seckill purchase token"
	admissionKind = "seckill admission token" // the waiting room's: see room.go
)

func newPurchaseTokens(jwtSecret, kind string, ttl time.Duration) purchaseTokens {
	mac := hmac.New(sha256.New, []byte(jwtSecret))
	mac.Write([]byte(kind))
	return purchaseTokens{key: mac.Sum(nil), ttl: ttl}
}

func (p purchaseTokens) mac(user string, item int64, exp int64) []byte {
	m := hmac.New(sha256.New, p.key)
	m.Write([]byte(user + "\x00" + strconv.FormatInt(item, 10) + "\x00" + strconv.FormatInt(exp, 10)))
	return m.Sum(nil)
}

func (p purchaseTokens) issue(user string, item int64, now time.Time) (string, time.Time) {
	exp := now.Add(p.ttl)
	return p.issueUntil(user, item, exp), exp
}

// issueUntil returns a token that expires at exp.
func (p purchaseTokens) issueUntil(user string, item int64, exp time.Time) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(exp.UnixMilli()))
	enc := base64.RawURLEncoding
	return enc.EncodeToString(b[:]) + "." + enc.EncodeToString(p.mac(user, item, exp.UnixMilli()))
}

func (p purchaseTokens) valid(token, user string, item int64, now time.Time) bool {
	a, b, ok := strings.Cut(token, ".")
	enc := base64.RawURLEncoding
	expBytes, err1 := enc.DecodeString(a)
	sig, err2 := enc.DecodeString(b)
	if !ok || err1 != nil || err2 != nil || len(expBytes) != 8 {
		return false
	}
	exp := int64(binary.BigEndian.Uint64(expBytes))
	return now.UnixMilli() < exp && hmac.Equal(sig, p.mac(user, item, exp))
}

// admittedKey marks a purchase that carries the waiting room's admission.
const admittedKey = "seckill.admitted"

// requirePurchaseToken refuses a purchase without a valid token for this
// shopper and sale, before anything else runs. An admission token from the
// waiting room counts as one and marks the purchase admitted; the reserve
// script refuses purchases of a room's sale that are not. The purchase token
// is tried first: it is what the storm of a sale without a room carries, so
// that storm pays for one signature check, not two.
func (g *guards) requirePurchaseToken(c *gin.Context) {
	id, err := pathID(c, errItemNotFound)
	if err != nil {
		g.fail(c, err)
		return
	}
	tok, user, now := c.GetHeader(PurchaseTokenHeader), userOf(c), g.now()
	switch {
	case tok != "" && g.purchaseTok.valid(tok, user, id, now):
	case tok != "" && g.admissionTok.valid(tok, user, id, now):
		c.Set(admittedKey, true)
	case g.requireToken:
		g.fail(c, errBadPurchaseToken)
	}
}

// PurchaseTokenMinter issues the tokens this server accepts, for load tools
// that know the JWT secret and must not fetch a token per simulated shopper.
type PurchaseTokenMinter struct{ p purchaseTokens }

// NewPurchaseTokenMinter mints tokens for a server whose JWT secret is
// jwtSecret; each lives for ttl.
func NewPurchaseTokenMinter(jwtSecret string, ttl time.Duration) PurchaseTokenMinter {
	return PurchaseTokenMinter{newPurchaseTokens(jwtSecret, purchaseKind, ttl)}
}

// Issue returns user's token for item, valid from now.
func (m PurchaseTokenMinter) Issue(user string, item int64, now time.Time) string {
	tok, _ := m.p.issue(user, item, now)
	return tok
}
