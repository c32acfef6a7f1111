package app_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
)

// TestSoldOutSizeBehindTheGate: with the admission gate and sold-out marks on,
// as a server runs by default, a size that just sold out is answered 410
// sold_out naming the sizes left, not 503: the gate knows the size is gone but
// not which others are left, so it lets Redis say, and Redis's answer marks
// the size for the shoppers who follow. The clock stands still: every request
// falls in the gate's one window.
func TestSoldOutSizeBehindTheGate(t *testing.T) {
	t.Parallel()
	clk := newClock(time.Now())
	s := start(t, clk, shippedGate(t), func(c *config.Config) { c.SoldOutTTL = time.Hour })
	created := s.call(t, "POST", "/api/v1/admin/items", adminToken, fmt.Sprintf(`{"name":"Runner","starts_at":%q,
		"ends_at":%q,"variants":[{"label":"S","stock_total":2},{"label":"M","stock_total":5}]}`,
		clk.Now().Add(-time.Minute).Format(time.RFC3339), clk.Now().Add(time.Hour).Format(time.RFC3339)))
	check(t, created, want{201, "", ""})
	id := int64(created.body["id"].(float64))
	vs := created.body["variants"].([]any)
	small, medium := int64(vs[0].(map[string]any)["id"].(float64)), int64(vs[1].(map[string]any)["id"].(float64))
	buy := func(user string, variant int64) reply {
		return s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", mintToken(t, user),
			fmt.Sprintf(`{"variant_id":%d,"quantity":1}`, variant))
	}

	check(t, buy("ann", small), want{202, "", ""})
	check(t, buy("bob", small), want{202, "", ""}) // the last S: the gate now sees none left
	for _, user := range []string{"cy", "dee"} {   // cy's answer is Redis's, dee's the mark's
		r := buy(user, small)
		check(t, r, want{410, "sold_out", ""})
		if got := fmt.Sprint(r.body["error"].(map[string]any)["available_variants"]); got != fmt.Sprintf("[%d]", medium) {
			t.Fatalf("%s: sold-out answer offers %s, want [%d] (%s)", user, got, medium, r.raw)
		}
	}
	if n := metric(t, s, "gated_sold_out"); n != 1 {
		t.Fatalf("%d answers from the variant's mark, want 1 (dee's)", n)
	}
	check(t, buy("cy", medium), want{202, "", ""})
}
