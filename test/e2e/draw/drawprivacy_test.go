package draw

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/draw"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
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
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk)
	id, sizes := s.CreateDraw(t, e2etest.DrawBody(e2etest.T0, e2etest.Size("EU 41", 2), e2etest.Size("EU 42", 1)))
	known := []string{"ann@example.com", "bob@example.com", "cyd@example.com", "dee@example.com", "eve@example.com"}
	answers := map[string]e2etest.Reply{}
	for i, u := range known[:4] { // eve does not enter
		body := map[string]any{"variant_id": sizes["EU 41"]}
		if i%2 == 0 { // the page's way: the device picks the secret
			body["entry_secret"] = newSecret(t)
		}
		answers[u] = s.EnterWith(t, id, s.Login(t, u), body)
		if r := answers[u]; r.Status != 200 || len(r.Str("entry_secret")) != 64 ||
			(body["entry_secret"] != nil && r.Str("entry_secret") != body["entry_secret"]) {
			t.Fatalf("enter %s with %v: %d %s", u, body["entry_secret"], r.Status, r.Raw)
		}
	}
	answers["ann@example.com"] = secretKept(t, s, id, sizes["EU 42"], answers["ann@example.com"])

	clk.Add(10 * time.Minute)
	testenv.WaitFor(t, 10*time.Second, func() bool { return s.Draw(t, id).Phase == "drawn" }, "the draw never ran")
	doc := s.Call(t, "GET", "/api/v1/items/"+e2etest.Itoa(id)+"/draw", "", nil).Raw
	d := s.Draw(t, id)
	salt := e2etest.Unhex(t, d.Salt)

	// From the public proof alone: no id derived from a user id and public
	// values is there, and neither user ids nor secrets are published.
	for _, u := range known {
		if guess := e2etest.Sha(salt, []byte(u)); strings.Contains(doc, guess) {
			t.Errorf("SHA-256(salt || %q) is among the published entries: anyone can tell %s entered", u, u)
		}
		if strings.Contains(doc, u) {
			t.Errorf("the published draw names %s", u)
		}
	}
	for u, a := range answers {
		if strings.Contains(doc, a.Str("entry_secret")) {
			t.Errorf("the published draw shows %s's entry secret", u)
		}
	}

	// Each shopper checks their own entry from what the entry answer gave.
	for u, a := range answers {
		secret := a.Str("entry_secret")
		if a.Str("commitment") != *d.SeedSHA256 || a.Str("salt") != *d.Salt {
			t.Fatalf("%s's entry answer: commitment %s, salt %s; the draw publishes %s, %s", u, a.Str("commitment"), a.Str("salt"), *d.SeedSHA256, *d.Salt)
		}
		mine := draw.EntryID(salt, e2etest.Unhex(t, &secret), u)
		c, err := draw.VerifyJSON([]byte(doc), draw.Against{Commitment: a.Str("commitment"), EntryID: mine})
		if err != nil || c.Mine == nil || c.Mine.VariantID != int64(e2etest.Num(a.Body, "variant_id")) {
			t.Fatalf("%s checks the draw with their secret: %v, %+v", u, err, c.Mine)
		}
	}
}

// secretKept: a later entry without a secret keeps the stored one, one
// with another secret replaces it and the entry id, a malformed secret is
// refused and changes nothing.
func secretKept(t *testing.T, s *e2etest.Server, id, other int64, first e2etest.Reply) e2etest.Reply {
	t.Helper()
	tok := s.Login(t, "ann@example.com")
	again := s.EnterWith(t, id, tok, map[string]any{"variant_id": other})
	if again.Status != 200 || again.Str("entry_secret") != first.Str("entry_secret") || again.Str("entry_id") != first.Str("entry_id") {
		t.Errorf("a second entry without a secret: %s; the first was %s", again.Raw, first.Raw)
	}
	for _, bad := range []any{"abc", strings.ToUpper(newSecret(t)), newSecret(t) + "00", 7} {
		r := s.EnterWith(t, id, tok, map[string]any{"variant_id": other, "entry_secret": bad})
		want := "invalid_entry_secret"
		if _, ok := bad.(int); ok {
			want = "invalid_request" // not a string: the body's shape is wrong
		}
		if r.Status != 400 || r.ErrCode() != want {
			t.Fatalf("entry secret %v: %d %s", bad, r.Status, r.Raw)
		}
	}
	if r := s.Entry(t, id, tok); r.Str("entry_id") != first.Str("entry_id") {
		t.Errorf("a refused entry changed the entry: %s", r.Raw)
	}
	fresh := newSecret(t)
	moved := s.EnterWith(t, id, tok, map[string]any{"variant_id": other, "entry_secret": fresh})
	if moved.Status != 200 || moved.Str("entry_secret") != fresh || moved.Str("entry_id") == first.Str("entry_id") {
		t.Errorf("an entry with another secret: %s; the first was %s", moved.Raw, first.Raw)
	}
	if r := s.Entry(t, id, tok); r.Str("entry_id") != moved.Str("entry_id") || r.Str("entry_secret") != fresh {
		t.Errorf("GET entry after a new secret: %s", r.Raw)
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
