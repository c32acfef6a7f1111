package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// SignatureHeader carries a body's signature both ways: on the events
// seckill sends and on the payment callbacks it receives.
const SignatureHeader = "X-Seckill-Signature"

// Tolerance is how old a signed timestamp may be before Verify refuses it,
// and how far ahead of the clock: a captured request cannot be replayed
// later than this.
const Tolerance = 5 * time.Minute

// Errors of Verify.
var (
	ErrBadSignature = errors.New("webhook: signature missing or not valid")
	ErrStale        = errors.New("webhook: signature timestamp outside the tolerance")
)

// Sign returns the signature header's value for body sent at t:
// "t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>", the
// scheme the large payment providers use.
func Sign(secret []byte, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac(secret, ts, body))
}

func mac(secret []byte, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// Verify checks header against body under secret at now: one of its v1
// values must be the body's MAC for its timestamp (several v1 values let a
// sender sign with an old and a new secret while rotating), and the
// timestamp must be within Tolerance of now. It returns ErrBadSignature or
// ErrStale.
func Verify(secret []byte, header string, body []byte, now time.Time) error {
	var ts string
	var sigs [][]byte
	for _, part := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		switch {
		case !ok:
		case k == "t":
			ts = v
		case k == "v1":
			if b, err := hex.DecodeString(v); err == nil {
				sigs = append(sigs, b)
			}
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return ErrBadSignature
	}
	want := mac(secret, ts, body)
	valid := false
	for _, s := range sigs {
		valid = valid || hmac.Equal(s, want)
	}
	if !valid {
		return ErrBadSignature
	}
	if age := now.Sub(time.Unix(sec, 0)); age > Tolerance || age < -Tolerance {
		return ErrStale
	}
	return nil
}
