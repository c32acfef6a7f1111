package browser

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

var entryPath = regexp.MustCompile(`^/api/v1/items/\d+/entry$`)

// answerSecret forges the answer to user's entry: a secret the server
// chose, with the entry id it gives, consistent with the salt, as a server
// placing the shopper where it likes would answer.
func answerSecret(resp *http.Response, user string) error {
	if resp.Request.Method != http.MethodPost || !entryPath.MatchString(resp.Request.URL.Path) || resp.StatusCode != http.StatusOK {
		return nil
	}
	var e map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
		return err
	}
	resp.Body.Close()
	salt, _ := hex.DecodeString(e["salt"].(string))
	secret := sha256.Sum256([]byte("the server's choice"))
	id := sha256.Sum256(append(append(salt, secret[:]...), user...))
	e["entry_secret"], e["entry_id"] = hex.EncodeToString(secret[:]), hex.EncodeToString(id[:])
	return setBody(resp, e)
}

// TestBrowserDrawPageKeepsOnlyTheSecretItChose: the draw page keeps the
// entry secret it generated, never one the server answers. An answer with
// another secret (and the entry id that secret gives) is refused aloud and
// nothing is kept; a shopper who entered elsewhere with a secret the
// server drew gets a secret of this device's own when changing size here.
//
// Serial, like every browser test: see browser_test.go.
func TestBrowserDrawPageKeepsOnlyTheSecretItChose(t *testing.T) {
	clk := &shiftClock{}
	s := e2etest.Start(t, clk)
	f, base := newForger(t, s)
	created := s.Call(t, "POST", "/api/v1/admin/items", e2etest.AdminToken, e2etest.DrawBody(clk.Now().Add(-time.Minute), e2etest.Size("EU 42", 1), e2etest.Size("EU 43", 1)))
	if created.Status != 201 {
		t.Fatalf("create draw: %d %s", created.Status, created.Raw)
	}
	id, sizes := int64(e2etest.Num(created.Body, "id")), e2etest.VariantIDs(t, created)
	sale, keptOf := "/sale/"+e2etest.Itoa(id), func(u string) string {
		return `localStorage.getItem('seckill.draw.` + e2etest.Itoa(id) + `.` + u + `')`
	}

	f.mode.Store("answer-secret:oli")
	b := newTab(t, s)
	b.base = base
	b.signInAt("oli")
	b.open(sale)
	b.until(drawState+` === 'open'`, 10*time.Second)
	b.do(chromedp.Click(css(variantButton(sizes["EU 42"]))))
	b.until(`!document.querySelector('#enter').disabled`, 5*time.Second)
	b.do(chromedp.Click(css("#enter")))
	b.until(`document.querySelector('#draw-error').textContent.includes('does not match what this browser sent (another entry secret)')`, 20*time.Second)
	if !b.eval(keptOf("oli") + ` === null`) {
		t.Errorf("the page kept an entry the server answered with its own secret")
	}
	b.shots("draw-entry-refused")
	f.mode.Store("")

	// An API client sent no secret, so the server drew one: a device that
	// kept nothing does not adopt it, it sends its own.
	tok := s.Login(t, "pia")
	first := s.Enter(t, id, tok, sizes["EU 42"])
	if first.Status != 200 {
		t.Fatalf("enter pia: %d %s", first.Status, first.Raw)
	}
	p := newTab(t, s)
	p.base = base
	p.signInAt("pia")
	p.open(sale)
	p.until(drawState+` === 'entered'`, 10*time.Second)
	p.do(chromedp.Click(css("#change")))
	p.until(`document.querySelector('#enter').textContent === 'Choose another size'`, 5*time.Second)
	p.enterDraw(sizes["EU 43"], "EU 43")
	now := s.Entry(t, id, tok)
	if secret := now.Str("entry_secret"); secret == first.Str("entry_secret") || !p.eval(`JSON.parse(`+keptOf("pia")+`).entry_secret === '`+secret+`'`) {
		t.Errorf("after the change of size the entry's secret is %s (the server's was %s); the page kept %s", secret, first.Str("entry_secret"),
			p.text("[data-proof=secret]"))
	}
}
