package app_test

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/draw"
	"github.com/seckill/seckill/internal/testenv"
)

// TestDrawProofHidesWhoEntered: a published draw must not tell anyone who
// knows (or guesses) a user id, an e-mail address say, whether that person
// entered: the entry ids take a secret only the shopper's device and the
// server hold. The shopper still finds and checks their own entry with the
// secret and commitment their entry answer gave. And the secret is the
// shopper's: the one sent is used, kept by a later entry without one,
// replaced by a later entry with another, and a malformed one is refused
// with nothing changed.
func TestDrawProofHidesWhoEntered(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk)
	created := s.call(t, "POST", "/api/v1/admin/items", adminToken, drawBody(t0, size("EU 41", 2), size("EU 42", 1)))
	if created.status != 201 {
		t.Fatalf("create draw: %s", created.raw)
	}
	id, sizes := int64(num(created.body, "id")), variantIDs(t, created)
	known := []string{"ann@example.com", "bob@example.com", "cyd@example.com", "dee@example.com", "eve@example.com"}
	answers := map[string]reply{}
	for i, u := range known[:4] { // eve does not enter
		body := map[string]any{"variant_id": sizes["EU 41"]}
		if i%2 == 0 { // the page's way: the device picks the secret
			body["entry_secret"] = newSecret(t)
		}
		answers[u] = s.enterWith(t, id, s.login(t, u), body)
		if r := answers[u]; r.status != 200 || len(r.str("entry_secret")) != 64 ||
			(body["entry_secret"] != nil && r.str("entry_secret") != body["entry_secret"]) {
			t.Fatalf("enter %s with %v: %d %s", u, body["entry_secret"], r.status, r.raw)
		}
	}
	answers["ann@example.com"] = secretKept(t, s, id, sizes["EU 42"], answers["ann@example.com"])

	clk.Add(10 * time.Minute)
	testenv.WaitFor(t, 10*time.Second, func() bool { return s.draw(t, id).Phase == "drawn" }, "the draw never ran")
	doc := s.call(t, "GET", "/api/v1/items/"+itoa(id)+"/draw", "", nil).raw
	d := s.draw(t, id)
	salt := unhex(t, d.Salt)

	// From the public proof alone: no id derived from a user id and public
	// values is there, and neither user ids nor secrets are published.
	for _, u := range known {
		if guess := sha(salt, []byte(u)); strings.Contains(doc, guess) {
			t.Errorf("SHA-256(salt || %q) is among the published entries: anyone can tell %s entered", u, u)
		}
		if strings.Contains(doc, u) {
			t.Errorf("the published draw names %s", u)
		}
	}
	for u, a := range answers {
		if strings.Contains(doc, a.str("entry_secret")) {
			t.Errorf("the published draw shows %s's entry secret", u)
		}
	}

	// Each shopper checks their own entry from what the entry answer gave.
	for u, a := range answers {
		secret := a.str("entry_secret")
		if a.str("commitment") != *d.SeedSHA256 || a.str("salt") != *d.Salt {
			t.Fatalf("%s's entry answer: commitment %s, salt %s; the draw publishes %s, %s", u, a.str("commitment"), a.str("salt"), *d.SeedSHA256, *d.Salt)
		}
		mine := draw.EntryID(salt, unhex(t, &secret), u)
		c, err := draw.VerifyJSON([]byte(doc), draw.Against{Commitment: a.str("commitment"), EntryID: mine})
		if err != nil || c.Mine == nil || c.Mine.VariantID != int64(num(a.body, "variant_id")) {
			t.Fatalf("%s checks the draw with their secret: %v, %+v", u, err, c.Mine)
		}
	}
}

// secretKept: a later entry without a secret keeps the stored one, one
// with another secret replaces it and the entry id, a malformed secret is
// refused and changes nothing.
func secretKept(t *testing.T, s *server, id, other int64, first reply) reply {
	t.Helper()
	tok := s.login(t, "ann@example.com")
	again := s.enterWith(t, id, tok, map[string]any{"variant_id": other})
	if again.status != 200 || again.str("entry_secret") != first.str("entry_secret") || again.str("entry_id") != first.str("entry_id") {
		t.Errorf("a second entry without a secret: %s; the first was %s", again.raw, first.raw)
	}
	for _, bad := range []any{"abc", strings.ToUpper(newSecret(t)), newSecret(t) + "00", 7} {
		r := s.enterWith(t, id, tok, map[string]any{"variant_id": other, "entry_secret": bad})
		want := "invalid_entry_secret"
		if _, ok := bad.(int); ok {
			want = "invalid_request" // not a string: the body's shape is wrong
		}
		if r.status != 400 || r.errCode() != want {
			t.Fatalf("entry secret %v: %d %s", bad, r.status, r.raw)
		}
	}
	if r := s.entry(t, id, tok); r.str("entry_id") != first.str("entry_id") {
		t.Errorf("a refused entry changed the entry: %s", r.raw)
	}
	fresh := newSecret(t)
	moved := s.enterWith(t, id, tok, map[string]any{"variant_id": other, "entry_secret": fresh})
	if moved.status != 200 || moved.str("entry_secret") != fresh || moved.str("entry_id") == first.str("entry_id") {
		t.Errorf("an entry with another secret: %s; the first was %s", moved.raw, first.raw)
	}
	if r := s.entry(t, id, tok); r.str("entry_id") != moved.str("entry_id") || r.str("entry_secret") != fresh {
		t.Errorf("GET entry after a new secret: %s", r.raw)
	}
	return moved
}

func newSecret(t *testing.T) string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}
