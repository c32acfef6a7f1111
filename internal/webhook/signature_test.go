package webhook_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/webhook"
)

var secret = []byte("whsec-test-0123456789abcdef0123456789")

// TestSignIsTheDocumentedScheme recomputes the header the way the README
// tells a receiver to: t=<unix>,v1=hex(HMAC-SHA256(secret, t + "." + body)).
func TestSignIsTheDocumentedScheme(t *testing.T) {
	at := time.Unix(1795000000, 0)
	body := []byte(`{"id":"evt_1","type":"order.paid"}`)
	m := hmac.New(sha256.New, secret)
	fmt.Fprintf(m, "%d.%s", at.Unix(), body)
	want := fmt.Sprintf("t=%d,v1=%s", at.Unix(), hex.EncodeToString(m.Sum(nil)))
	if got := webhook.Sign(secret, at, body); got != want {
		t.Fatalf("Sign = %q, want %q", got, want)
	}
}

func TestVerify(t *testing.T) {
	now := time.Unix(1795000000, 0)
	body := []byte(`{"order_id":"01J","status":"paid"}`)
	good := webhook.Sign(secret, now.Add(-time.Minute), body)
	other := webhook.Sign([]byte("another-secret-0123456789abcdef0123"), now, body)
	for _, tc := range []struct {
		name   string
		header string
		body   []byte
		want   error
	}{
		{"valid", good, body, nil},
		{"tampered body", good, []byte(`{"order_id":"01J","status":"paid "}`), webhook.ErrBadSignature},
		{"wrong secret", other, body, webhook.ErrBadSignature},
		{"missing", "", body, webhook.ErrBadSignature},
		{"no timestamp", good[len("t=1795000000,"):], body, webhook.ErrBadSignature},
		{"six minutes old", webhook.Sign(secret, now.Add(-6*time.Minute), body), body, webhook.ErrStale},
		{"six minutes ahead", webhook.Sign(secret, now.Add(6*time.Minute), body), body, webhook.ErrStale},
		// While a sender rotates its secret it sends both signatures.
		{"rotation", other + ",v1=" + good[len("t=1795000000,v1="):], body, webhook.ErrBadSignature},
		{"rotation, same timestamp", fmt.Sprintf("%s,%s", webhook.Sign(secret, now, body), other[len("t=1795000000,"):]), body, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := webhook.Verify(secret, tc.header, tc.body, now); !errors.Is(err, tc.want) {
				t.Fatalf("Verify(%q) = %v, want %v", tc.header, err, tc.want)
			}
		})
	}
}
