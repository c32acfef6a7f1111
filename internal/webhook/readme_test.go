package webhook_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/webhook"
)

// verify is the README's receiver check, verbatim (TestReadmeReceiverCheck
// keeps the two the same).
func verify(secret []byte, header string, body []byte) bool {
	var t, v1 string
	for _, kv := range strings.Split(header, ",") {
		switch k, v, _ := strings.Cut(kv, "="); k {
		case "t":
			t = v
		case "v1":
			v1 = v
		}
	}
	sec, err := strconv.ParseInt(t, 10, 64)
	if err != nil || time.Since(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		return false
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(t + "." + string(body)))
	sig, _ := hex.DecodeString(v1)
	return hmac.Equal(sig, mac.Sum(nil))
}

// TestReadmeReceiverCheck: the signature check the README gives receivers
// is the one above, and it accepts what seckill signs and nothing else.
func TestReadmeReceiverCheck(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	start := strings.Index(string(readme), "func verify(")
	if start < 0 {
		t.Fatal("README has no receiver check")
	}
	snippet := string(readme)[start:]
	snippet = snippet[:strings.Index(snippet, "\n}\n")+2]
	if !strings.Contains(string(self), snippet) {
		t.Fatalf("the README's receiver check differs from the one tested here:\n%s", snippet)
	}
	body := []byte(`{"id":"evt_1","type":"order.paid","data":{}}`)
	if !verify(secret, webhook.Sign(secret, time.Now(), body), body) {
		t.Error("the README's check refuses a signed event")
	}
	if verify(secret, webhook.Sign(secret, time.Now(), body), append(body, ' ')) {
		t.Error("the README's check accepts a changed body")
	}
	if verify(secret, webhook.Sign(secret, time.Now().Add(-6*time.Minute), body), body) {
		t.Error("the README's check accepts a six-minute-old signature")
	}
	if verify([]byte("another-secret-0123456789abcdef0123"), webhook.Sign(secret, time.Now(), body), body) {
		t.Error("the README's check accepts another secret's signature")
	}
}
