// Package pow prices an action in CPU: before a shopper joins a waiting
// room or enters a draw, the server hands out a challenge and the client
// must find a decimal string x such that SHA-256(challenge ":" x) starts
// with at least d zero bits. A person's browser pays that once, while
// waiting anyway; a farm of bots pays it per attempt. The server checks a
// proof with one hash and one MAC.
//
// A challenge is opaque to clients but carries what it is for: the
// shopper, the client network it was handed to, the sale, its expiry, its
// difficulty and a random id, under an HMAC of the server's secret, so the
// server keeps nothing per challenge until it is spent (Ledger remembers
// spent ones). The network is there because the difficulty is priced per
// network (Pricer): a challenge fetched cheaply from a quiet network must
// not pay for a request from a busy one.
package pow

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// Errors of Check; each means the client must solve a fresh challenge.
var (
	ErrMissing      = errors.New("pow: no proof")
	ErrMalformed    = errors.New("pow: proof is not <challenge>:<decimal>")
	ErrForged       = errors.New("pow: challenge was not issued by this server")
	ErrExpired      = errors.New("pow: challenge expired")
	ErrNotYours     = errors.New("pow: challenge was issued to another shopper or for another sale")
	ErrOtherNetwork = errors.New("pow: challenge was issued to another network")
	ErrTooWeak      = errors.New("pow: hash has too few leading zero bits")
	ErrSpent        = errors.New("pow: challenge already used")
)

// MaxDifficulty bounds what the server asks: at 2^26 hashes a browser
// works for tens of seconds, which no real shopper should meet.
const MaxDifficulty = 26

// Challenge is what a challenge says about itself once checked.
type Challenge struct {
	ID         string // random; what Ledger spends
	UserID     string
	Network    string // the client network it was issued to
	ItemID     int64
	Difficulty int
	Expires    time.Time
}

// Issuer hands out and checks challenges under one secret.
type Issuer struct {
	secret []byte
	ttl    time.Duration
	now    func() time.Time
}

// NewIssuer returns an issuer whose challenges live ttl, dated by now
// (the wall clock: a proof's age is real time, whatever the sale's clock).
func NewIssuer(secret []byte, ttl time.Duration, now func() time.Time) *Issuer {
	return &Issuer{secret: secret, ttl: ttl, now: now}
}

// format is the challenge's layout version: 2 added the network, so a
// challenge of version 1 (issued before an upgrade) is malformed.
const format = "2"

// Issue returns a challenge for userID's action on sale itemID, asked
// from client network (an opaque key: the caller decides what a network
// is), at difficulty d (clamped to 0..MaxDifficulty).
func (is *Issuer) Issue(userID, network string, itemID int64, d int) string {
	d = min(max(d, 0), MaxDifficulty)
	var id [12]byte
	_, _ = rand.Read(id[:])
	exp := is.now().Add(is.ttl).Unix()
	b64 := base64.RawURLEncoding.EncodeToString
	payload := strings.Join([]string{format, b64(id[:]), strconv.FormatInt(itemID, 10), strconv.FormatInt(exp, 10),
		strconv.Itoa(d), b64([]byte(userID)), b64([]byte(network))}, ".")
	return payload + "." + b64(is.mac(payload))
}

func (is *Issuer) mac(payload string) []byte {
	m := hmac.New(sha256.New, is.secret)
	m.Write([]byte("pow:"))
	m.Write([]byte(payload))
	return m.Sum(nil)[:16]
}

// Check verifies proof ("<challenge>:<x>") for userID's action on sale
// itemID from client network: issued here, not expired, for them and this
// sale, to this network, and solved. It does not spend it (Ledger.Spend).
func (is *Issuer) Check(proof, userID, network string, itemID int64) (Challenge, error) {
	if proof == "" {
		return Challenge{}, ErrMissing
	}
	i := strings.LastIndexByte(proof, ':')
	if i < 0 || !decimal(proof[i+1:]) {
		return Challenge{}, ErrMalformed
	}
	challenge := proof[:i]
	c, err := is.parse(challenge)
	if err != nil {
		return Challenge{}, err
	}
	switch {
	case !is.now().Before(c.Expires):
		return c, ErrExpired
	case c.UserID != userID || c.ItemID != itemID:
		return c, ErrNotYours
	case c.Network != network:
		return c, ErrOtherNetwork
	case LeadingZeros(challenge, proof[i+1:]) < c.Difficulty:
		return c, ErrTooWeak
	}
	return c, nil
}

func (is *Issuer) parse(challenge string) (Challenge, error) {
	parts := strings.Split(challenge, ".")
	if len(parts) != 8 || parts[0] != format {
		return Challenge{}, ErrMalformed
	}
	payload := strings.Join(parts[:7], ".")
	sig, err := base64.RawURLEncoding.DecodeString(parts[7])
	if err != nil || !hmac.Equal(sig, is.mac(payload)) {
		return Challenge{}, ErrForged
	}
	item, err1 := strconv.ParseInt(parts[2], 10, 64)
	exp, err2 := strconv.ParseInt(parts[3], 10, 64)
	d, err3 := strconv.Atoi(parts[4])
	user, err4 := base64.RawURLEncoding.DecodeString(parts[5])
	network, err5 := base64.RawURLEncoding.DecodeString(parts[6])
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		return Challenge{}, ErrMalformed // signed by us, so never; but a parse is a parse
	}
	return Challenge{ID: parts[1], UserID: string(user), Network: string(network), ItemID: item, Difficulty: d,
		Expires: time.Unix(exp, 0)}, nil
}

// decimal says whether s is a non-empty string of at most 20 ASCII digits:
// any longer cannot be an honest counter, and bounds the hash's input.
func decimal(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// LeadingZeros is the number of leading zero bits of
// SHA-256(challenge ":" x).
func LeadingZeros(challenge, x string) int {
	h := sha256.New()
	h.Write([]byte(challenge))
	h.Write([]byte{':'})
	h.Write([]byte(x))
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	n := 0
	for i := 0; i < len(sum); i += 8 {
		w := binary.BigEndian.Uint64(sum[i:])
		n += bits.LeadingZeros64(w)
		if w != 0 {
			break
		}
	}
	return n
}

// Solve finds the smallest x (counting from 0) that solves challenge at
// difficulty d: what a client does, here for tests and the benchmark.
func Solve(challenge string, d int) string {
	for x := uint64(0); ; x++ {
		s := strconv.FormatUint(x, 10)
		if LeadingZeros(challenge, s) >= d {
			return s
		}
	}
}
