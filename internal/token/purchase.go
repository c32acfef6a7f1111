// Package token issues and checks the server's own credentials: shoppers'
// session JWTs, the dashboard's admin sessions, and the short-lived purchase
// and admission tokens. Every key derives from the one JWT secret, so the
// server, the load tools (cmd/bench) and a shop's own login that know the
// secret mint tokens the server accepts, without the HTTP layer.
package token

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"strconv"
	"strings"
	"time"
)

// Token kinds: each has a key of its own derived from the JWT secret, so no
// JWT verifies as a token and no purchase token as an admission.
const (
	purchaseKind  = "seckill purchase token"
	admissionKind = "seckill admission token" // the waiting room's
)

// Purchase tokens are short-lived HMACs over (shopper, sale, expiry). They
// are only issued from the sale's opening second, by the server's clock, so
// the purchase endpoint cannot be scripted before the sale opens, whatever
// clock a bot keeps. The waiting room's admissions have the same shape under
// a key of their own (NewAdmission).
type Purchase struct {
	key []byte
	ttl time.Duration
}

// NewPurchase returns the purchase tokens of a server whose JWT secret is
// secret; each lives for ttl.
func NewPurchase(secret string, ttl time.Duration) Purchase {
	return newKind(secret, purchaseKind, ttl)
}

// NewAdmission returns the waiting room's admission tokens of a server whose
// JWT secret is secret; each lives for ttl.
func NewAdmission(secret string, ttl time.Duration) Purchase {
	return newKind(secret, admissionKind, ttl)
}

func newKind(secret, kind string, ttl time.Duration) Purchase {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(kind))
	return Purchase{key: mac.Sum(nil), ttl: ttl}
}

// TTL is how long a token lives.
func (p Purchase) TTL() time.Duration { return p.ttl }

func (p Purchase) mac(user string, item int64, exp int64) []byte {
	m := hmac.New(sha256.New, p.key)
	m.Write([]byte(user + "\x00" + strconv.FormatInt(item, 10) + "\x00" + strconv.FormatInt(exp, 10)))
	return m.Sum(nil)
}

// Issue returns user's token for item, valid from now, and its expiry.
func (p Purchase) Issue(user string, item int64, now time.Time) (string, time.Time) {
	exp := now.Add(p.ttl)
	return p.IssueUntil(user, item, exp), exp
}

// IssueUntil returns user's token for item that expires at exp.
func (p Purchase) IssueUntil(user string, item int64, exp time.Time) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(exp.UnixMilli()))
	enc := base64.RawURLEncoding
	return enc.EncodeToString(b[:]) + "." + enc.EncodeToString(p.mac(user, item, exp.UnixMilli()))
}

// Valid says whether token was issued to user for item and is unexpired at
// now.
func (p Purchase) Valid(token, user string, item int64, now time.Time) bool {
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
