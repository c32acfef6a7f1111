package purchase

import (
	"testing"
	"time"

	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestOrderAnswersNameTheVariant: paying and cancelling answer with the
// order as GET shows it, its variant named.
func TestOrderAnswersNameTheVariant(t *testing.T) {
	t.Parallel()
	clk := &e2etest.LiveClock{}
	s := e2etest.StartLive(t, clk)
	id, v := s.PageDrop(t, "Labelled drop", 9900, 1, "", clk.Now().Add(-time.Minute),
		e2etest.DropVariant{Label: "EU 41", Stock: 3}, e2etest.DropVariant{Label: "EU 42", Stock: 3})
	ann, ben := s.PageBuy(t, id, v["EU 41"], "ann"), s.PageBuy(t, id, v["EU 42"], "ben")
	e2etest.Check(t, ann, e2etest.Want{Status: 202})
	e2etest.Check(t, ben, e2etest.Want{Status: 202})
	s.Settle(t, id)
	for _, c := range []struct {
		user, order, action, label string
	}{{"ann", ann.Str("order_id"), "pay", "EU 41"}, {"ben", ben.Str("order_id"), "cancel", "EU 42"}} {
		r := s.Call(t, "POST", "/api/v1/orders/"+c.order+"/"+c.action, e2etest.MintToken(t, c.user), nil)
		e2etest.Check(t, r, e2etest.Want{Status: 200})
		if r.Str("variant_label") != c.label || r.Body["variant_id"] != float64(v[c.label]) {
			t.Errorf("%s answers %s, want variant %d %q", c.action, r.Raw, v[c.label], c.label)
		}
	}
}
