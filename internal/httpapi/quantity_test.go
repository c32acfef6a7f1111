package httpapi

import (
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// The fast path must accept and refuse exactly what the library's full
// parser does.
func TestVerifyFastAgreesWithTheLibrary(t *testing.T) {
	const secret = "jwt-secret-for-the-fast-path-test-0123456789"
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	tokens := NewTokens(secret, time.Hour, func() time.Time { return now })
	sign := func(key string, m jwt.SigningMethod, c jwt.Claims) string {
		s, err := jwt.NewWithClaims(m, c).SignedString([]byte(key))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	claims := func(sub string, exp time.Time) jwt.RegisteredClaims {
		return jwt.RegisteredClaims{Subject: sub, ExpiresAt: jwt.NewNumericDate(exp)}
	}
	good := sign(secret, jwt.SigningMethodHS256, claims("alice", now.Add(time.Minute)))
	head, rest, _ := strings.Cut(good, ".")
	payload, sig, _ := strings.Cut(rest, ".")
	other := sign(secret, jwt.SigningMethodHS256, claims("mallory", now.Add(time.Minute)))
	_, otherRest, _ := strings.Cut(other, ".")
	otherPayload, _, _ := strings.Cut(otherRest, ".")

	tests := []struct {
		name, token, user string // user "" = refused
	}{
		{"valid", good, "alice"},
		{"other secret", sign("another-secret-of-sufficient-length-012345", jwt.SigningMethodHS256, claims("alice", now.Add(time.Minute))), ""},
		{"expired", sign(secret, jwt.SigningMethodHS256, claims("alice", now.Add(-time.Second))), ""},
		{"no expiry", sign(secret, jwt.SigningMethodHS256, jwt.RegisteredClaims{Subject: "alice"}), ""},
		{"not yet valid", sign(secret, jwt.SigningMethodHS256, jwt.RegisteredClaims{Subject: "alice",
			ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour)), NotBefore: jwt.NewNumericDate(now.Add(time.Minute))}), ""},
		{"HS512 with the right secret", sign(secret, jwt.SigningMethodHS512, claims("alice", now.Add(time.Minute))), ""},
		{"payload swapped under a valid signature", head + "." + otherPayload + "." + sig, ""},
		{"extra segment", good + ".x", ""},
		{"signature not base64", head + "." + payload + ".!!!", ""},
		{"bad subject", sign(secret, jwt.SigningMethodHS256, claims("a b", now.Add(time.Minute))), ""},
		{"alg none", "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0." + payload + ".", ""},
		{"garbage", "not-a-token", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tokens.Verify(tc.token)
			if got != tc.user || (err == nil) != (tc.user != "") {
				t.Fatalf("Verify = %q, %v; want %q", got, err, tc.user)
			}
			var c jwt.RegisteredClaims
			_, libErr := jwt.ParseWithClaims(tc.token, &c, func(*jwt.Token) (any, error) { return []byte(secret), nil },
				append(tokenRules(tokens.now), jwt.WithValidMethods([]string{"HS256"}))...)
			if libAccepts := libErr == nil && userIDPattern.MatchString(c.Subject); libAccepts != (tc.user != "") {
				t.Fatalf("library accepts = %v, fast path user %q", libAccepts, got)
			}
		})
	}
}

// The shortcut for the usual purchase body must agree with the strict
// decoder: same quantity when it answers, and no answer for anything else.
func TestPlainQuantity(t *testing.T) {
	tests := map[string]int{ // -1: left to the decoder
		`{"quantity":1}`: 1, `{"quantity":9999}`: 9999, `{"quantity":10000}`: -1,
		`{"quantity":0}`: -1, `{"quantity":01}`: -1, `{"quantity":-1}`: -1, `{"quantity":1.5}`: -1,
		`{"quantity": 1}`: -1, `{"Quantity":1}`: -1, `{"quantity":"1"}`: -1, `{"quantity":1}]`: -1,
		`{"quantity":}`: -1, ``: -1, `{"quantity":1,"x":2}`: -1,
	}
	for body, want := range tests {
		got, ok := plainQuantity([]byte(body))
		if !ok {
			got = -1
		}
		if got != want {
			t.Errorf("plainQuantity(%s) = %d, want %d", body, got, want)
		}
	}
}
