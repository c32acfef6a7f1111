package browser

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/draw"
	"github.com/seckill/seckill/internal/draw/drawvec"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// vectorsInPage runs each vector through the page's check
// (web/static/drawcheck.js) as the check page does, from the document's
// text, the same bytes the Go verifier reads: held to the commitment
// and salt kept, the shopper's entry id from their secret under the salt.
const vectorsInPage = `(async (vs) => {
  const { checkDraw } = await import('/static/drawcheck.js');
  const out = {};
  for (const v of vs) {
    const s = v.shopper || {};
    const r = await checkDraw(v.text, { commitment: v.commitment, salt: s.salt, entryID: s.entry_id, secret: s.entry_secret, userID: s.user_id,
      variantID: s.variant_id, now: v.checked_at ? Date.parse(v.checked_at) : undefined });
    out[v.name] = { verdict: r.verdict, problem: r.problem || undefined,
      shopper: r.mine ? { variant_id: r.mine.variant_id, place: r.mine.place, outcome: r.mine.outcome } : undefined };
  }
  return out;
})`

// TestBrowserDrawCheckGivesEveryVectorItsVerdict runs every file of
// internal/draw/testdata/vectors, as the directory lists them, through the
// page's check in Chromium and through the Go verifier: both must give
// each file its verdict, its problem and the shopper's place, so neither
// can drift from the other or from the vectors.
//
// Serial, like every browser test: see browser_test.go.
func TestBrowserDrawCheckGivesEveryVectorItsVerdict(t *testing.T) {
	vs, err := drawvec.Read()
	if err != nil {
		t.Fatal(err)
	}
	type input struct {
		Name       string           `json:"name"`
		Commitment string           `json:"commitment,omitempty"`
		CheckedAt  *time.Time       `json:"checked_at,omitempty"`
		Shopper    *drawvec.Shopper `json:"shopper,omitempty"`
		Text       string           `json:"text"` // the bytes the Go verifier reads
	}
	in := make([]input, len(vs))
	for i, v := range vs {
		in[i] = input{v.Name, v.Commitment, v.CheckedAt, v.Shopper, string(v.Doc())}
	}
	arg, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	s := e2etest.StartLive(t, &e2etest.LiveClock{})
	b := newTab(t, s)
	b.open("/static/draw-proof.html")
	page, err := chromedp.Run(b.ctx, chromedp.Evaluate[map[string]drawvec.Expect](vectorsInPage+"("+string(arg)+")", chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("the page's check: %v", err)
	}
	if len(page) != len(vs) {
		t.Fatalf("the page checked %d vectors of %d", len(page), len(vs))
	}
	for _, v := range vs {
		inPage, inGo := page[v.Name], v.Check()
		if !v.Expect.Same(inPage) || !v.Expect.Same(inGo) {
			t.Errorf("%s (%s)\npage: %s\nGo:   %s\nwant: %s", v.Name, v.About, inPage, inGo, v.Expect)
		}
	}
}

// forger sits between the browser and the server and, when told to, serves
// a forged published draw: re-rolled with a seed of its own choosing, or
// without one shopper's entry. Each forgery is consistent in itself (the
// seed matches its seed_sha256, the winners are the rankings' heads): only
// what the shopper's device kept can show it.
type forger struct {
	mode atomic.Value // "", "reseed", "resalt", "drop:ENTRY_ID", "move:ENTRY_ID", "withhold" (still "drawing") or "answer-secret:USER"
}

func newForger(tb testing.TB, s *e2etest.Server) (*forger, string) {
	tb.Helper()
	target, _ := url.Parse("http://" + s.Addr)
	f := &forger{}
	f.mode.Store("")
	p := httputil.NewSingleHostReverseProxy(target)
	p.ModifyResponse = f.forge
	p.ErrorLog = log.New(io.Discard, "", 0) // a page leaving mid-request is not news
	srv := httptest.NewServer(p)
	tb.Cleanup(srv.Close)
	return f, srv.URL
}

var drawPath = regexp.MustCompile(`^/api/v1/items/\d+/draw$`)

func (f *forger) forge(resp *http.Response) error {
	mode := f.mode.Load().(string)
	if user, ok := strings.CutPrefix(mode, "answer-secret:"); ok {
		return answerSecret(resp, user)
	}
	if mode == "" || !drawPath.MatchString(resp.Request.URL.Path) || resp.StatusCode != http.StatusOK {
		return nil
	}
	var p draw.Proof
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
		return err
	}
	resp.Body.Close()
	if mode == "withhold" {
		p.Phase, p.DrawnAt, p.Seed, p.Entries, p.Winners, p.Backfilled = draw.PhaseDrawing, nil, nil, nil, nil, nil
	} else {
		redraw(&p, mode)
	}
	return setBody(resp, p)
}

// setBody makes v, as JSON, resp's body.
func setBody(resp *http.Response, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
	resp.Header.Set("Content-Length", strconv.Itoa(len(b)))
	resp.Header.Del("ETag")
	return nil
}

// redraw forges p: a new seed and its commitment, or one entry fewer; the
// winners are the rankings' heads, and nothing was passed on.
func redraw(p *draw.Proof, mode string) {
	seed, _ := hex.DecodeString(*p.Seed)
	if mode == "reseed" {
		seed = make([]byte, 32)
		_, _ = rand.Read(seed)
		commit, sd := draw.Commitment(seed), hex.EncodeToString(seed)
		p.SeedSHA256, p.Seed = &commit, &sd
	}
	if mode == "resalt" { // the ids would be recomputed too: the kept salt fails the draw first
		salt := make([]byte, 16)
		_, _ = rand.Read(salt)
		s := hex.EncodeToString(salt)
		p.Salt = &s
	}
	entries := []draw.Ticket{}
	for _, e := range *p.Entries {
		if "move:"+e.EntryID == mode {
			e.VariantID = otherThan(p.Variants, e.VariantID)
		}
		if "drop:"+e.EntryID != mode {
			entries = append(entries, e)
		}
	}
	units := map[int64]int{}
	for _, v := range p.Variants {
		units[v.VariantID] = v.StockTotal
	}
	winners, none := draw.Winners(draw.Rank(seed, entries, units), units), []draw.Ticket{}
	p.Entries, p.Winners, p.Backfilled, p.EntryCount = &entries, &winners, &none, len(entries)
}

// otherThan is the first variant other than v.
func otherThan(vs []draw.UnitsOf, v int64) int64 {
	for _, u := range vs {
		if u.VariantID != v {
			return u.VariantID
		}
	}
	return v
}

// TestBrowserDrawCheckHoldsTheDrawToWhatTheDeviceKept: a shopper enters a
// draw on its page, which keeps the entry secret and the commitment it
// showed on the device and prints them. After the draw the check page is
// green; when the server serves a re-seeded draw (with its own matching
// commitment), a re-salted one, one without the shopper's entry or with it
// under another size, it is red; one withheld after the close is "Not
// drawn", never green. A device that kept nothing says the commitment could
// not be checked, never green.
//
// Serial, like every browser test: see browser_test.go.
func TestBrowserDrawCheckHoldsTheDrawToWhatTheDeviceKept(t *testing.T) {
	clk := &shiftClock{}
	s := e2etest.Start(t, clk, func(cfg *config.Config) { cfg.PurchaseTokens = true })
	f, base := newForger(t, s)
	created := s.Call(t, "POST", "/api/v1/admin/items", e2etest.AdminToken, e2etest.DrawBody(clk.Now().Add(-time.Minute), e2etest.Size("EU 42", 1), e2etest.Size("EU 43", 1)))
	if created.Status != 201 {
		t.Fatalf("create draw: %d %s", created.Status, created.Raw)
	}
	id, sizes := int64(e2etest.Num(created.Body, "id")), e2etest.VariantIDs(t, created)
	for _, u := range []string{"kit", "lee", "max"} {
		if r := s.Enter(t, id, s.Login(t, u), sizes["EU 42"]); r.Status != 200 {
			t.Fatalf("enter %s: %d %s", u, r.Status, r.Raw)
		}
	}
	b := newTab(t, s)
	b.base = base
	b.signInAt("nia")
	b.open("/sale/" + e2etest.Itoa(id))
	b.until(drawState+` === 'open'`, 10*time.Second)
	b.enterDraw(sizes["EU 42"], "EU 42")
	open := s.Draw(t, id)
	entry := s.Entry(t, id, s.Login(t, "nia"))
	secret := entry.Str("entry_secret")
	if want := e2etest.Sha(e2etest.Unhex(t, open.Salt), e2etest.Unhex(t, &secret), []byte("nia")); entry.Str("entry_id") != want {
		t.Fatalf("the page's entry %s; want the id of its secret, %s", entry.Raw, want)
	}
	kept := `JSON.parse(localStorage.getItem('seckill.draw.` + e2etest.Itoa(id) + `.nia'))`
	if !b.eval(kept+`.commitment === '`+*open.SeedSHA256+`' && `+kept+`.entry_secret === '`+secret+`' && `+kept+`.entry_id === '`+entry.Str("entry_id")+`'`) ||
		b.text(`[data-proof="kept"]`) != *open.SeedSHA256 {
		t.Fatalf("the page kept %s and shows %q; the server's commitment is %s", b.text(`[data-proof="kept"]`), b.text(`[data-proof="kept"]`), *open.SeedSHA256)
	}

	clk.shift(10 * time.Minute)
	testenv.WaitFor(t, 10*time.Second, func() bool { return s.Draw(t, id).Phase == "drawn" }, "the draw never ran")
	proof := "/static/draw-proof.html?item=" + e2etest.Itoa(id)
	b.open(proof)
	b.until(`document.querySelector('#verdict').dataset.verdict === 'pass'`, 10*time.Second)
	b.shots("drawcheck-green")

	forgeries := map[string]string{"reseed": "the seed was changed", "drop:" + entry.Str("entry_id"): "is not among the 3 published entries",
		"resalt": "every entry id was changed", "move:" + entry.Str("entry_id"): "but you entered for EU 42: it was moved"}
	shot := map[string]string{"reseed": "drawcheck-red", "resalt": "drawcheck-red-salt", "move:" + entry.Str("entry_id"): "drawcheck-red-size"}
	for mode, says := range forgeries {
		f.mode.Store(mode)
		b.open(proof)
		b.until(`document.querySelector('#verdict').dataset.verdict === 'fail'`, 10*time.Second)
		if got := b.text("#checks"); !strings.Contains(got, says) || b.eval(`document.querySelector('#verdict').dataset.ok !== 'false'`) {
			t.Errorf("forged (%s): the page says %q", mode, got)
		}
		if shot[mode] != "" {
			b.shots(shot[mode])
		}
	}
	// A draw withheld after the close shows no entry: not green, not a pass.
	f.mode.Store("withhold")
	b.open(proof)
	b.until(`document.querySelector('#verdict').dataset.verdict === 'not_drawn'`, 10*time.Second)
	if got := b.text("#checks"); !strings.Contains(got, "cannot be checked yet") || b.eval(`document.querySelector('#verdict').dataset.ok !== 'false'`) {
		t.Errorf("withheld: the page says %q", got)
	}
	b.shots("drawcheck-not-drawn")
	f.mode.Store("")

	// A device that kept nothing cannot hold the seed to anything.
	other := newTab(t, s)
	other.base = base
	other.signInAt("kit")
	other.open(proof)
	other.until(`document.querySelector('#verdict').dataset.verdict === 'unconfirmed'`, 10*time.Second)
	if !strings.Contains(other.text("#verdict"), "could not be checked against one seen earlier") || other.eval(`document.querySelector('#verdict').dataset.ok === 'true'`) {
		t.Errorf("with nothing kept the page says %q", other.text("#verdict"))
	}
	other.shots("drawcheck-unconfirmed")
}

// shiftClock is the wall clock moved on by a test, safely for the server
// reading it meanwhile.
type shiftClock struct{ offset atomic.Int64 }

func (c *shiftClock) Now() time.Time        { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *shiftClock) shift(d time.Duration) { c.offset.Add(int64(d)) }
