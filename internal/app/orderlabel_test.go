package app_test

import (
	"testing"
	"time"
)

// TestOrderAnswersNameTheVariant: paying and cancelling answer with the
// order as GET shows it, its variant named.
func TestOrderAnswersNameTheVariant(t *testing.T) {
	t.Parallel()
	clk := &liveClock{}
	s := startLive(t, clk)
	id, v := s.pageDrop(t, "Labelled drop", 9900, 1, "", clk.Now().Add(-time.Minute),
		dropVariant{Label: "EU 41", Stock: 3}, dropVariant{Label: "EU 42", Stock: 3})
	ann, ben := s.pageBuy(t, id, v["EU 41"], "ann"), s.pageBuy(t, id, v["EU 42"], "ben")
	check(t, ann, want{202, "", ""})
	check(t, ben, want{202, "", ""})
	s.settle(t, id)
	for _, c := range []struct {
		user, order, action, label string
	}{{"ann", ann.str("order_id"), "pay", "EU 41"}, {"ben", ben.str("order_id"), "cancel", "EU 42"}} {
		r := s.call(t, "POST", "/api/v1/orders/"+c.order+"/"+c.action, mintToken(t, c.user), nil)
		check(t, r, want{200, "", ""})
		if r.str("variant_label") != c.label || r.body["variant_id"] != float64(v[c.label]) {
			t.Errorf("%s answers %s, want variant %d %q", c.action, r.raw, v[c.label], c.label)
		}
	}
}
