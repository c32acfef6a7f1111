package app_test

import (
	"encoding/json"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/seckill/seckill/internal/draw/drawvec"
)

// vectorsInPage runs each vector through the page's check
// (web/static/drawcheck.js) as the check page does: the shopper's entry id
// from their secret and the published salt, held with the commitment kept.
const vectorsInPage = `(async (vs) => {
  const { checkDraw, entryID } = await import('/static/drawcheck.js');
  const out = {};
  for (const v of vs) {
    const s = v.shopper;
    const id = s ? (s.entry_id || await entryID(v.draw && v.draw.salt, s.entry_secret, s.user_id)) : '';
    const r = await checkDraw(v.draw, { commitment: v.commitment, entryID: id });
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
		Shopper    *drawvec.Shopper `json:"shopper,omitempty"`
		Draw       json.RawMessage  `json:"draw"`
	}
	in := make([]input, len(vs))
	for i, v := range vs {
		in[i] = input{v.Name, v.Commitment, v.Shopper, v.Draw}
	}
	arg, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	s := startLive(t, &liveClock{})
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
