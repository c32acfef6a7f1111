package drop

import (
	"fmt"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestSoldOutSizeBehindTheGate: with the admission gate and sold-out marks on,
// as a server runs by default, a size that just sold out is answered 410
// sold_out naming the sizes left, not 503: the gate knows the size is gone but
// not which others are left, so it lets Redis say, and Redis's answer marks
// the size for the shoppers who follow. The clock stands still: every request
// falls in the gate's one window.
func TestSoldOutSizeBehindTheGate(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(time.Now())
	s := e2etest.Start(t, clk, shippedGate(t), func(c *config.Config) { c.SoldOutTTL = time.Hour })
	created := s.Call(t, "POST", "/api/v1/admin/items", e2etest.AdminToken, fmt.Sprintf(`{"name":"Runner","starts_at":%q,
		"ends_at":%q,"variants":[{"label":"S","stock_total":2},{"label":"M","stock_total":5}]}`,
		clk.Now().Add(-time.Minute).Format(time.RFC3339), clk.Now().Add(time.Hour).Format(time.RFC3339)))
	e2etest.Check(t, created, e2etest.Want{Status: 201})
	id := int64(created.Body["id"].(float64))
	vs := created.Body["variants"].([]any)
	small, medium := int64(vs[0].(map[string]any)["id"].(float64)), int64(vs[1].(map[string]any)["id"].(float64))
	buy := func(user string, variant int64) e2etest.Reply {
		return s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", e2etest.MintToken(t, user),
			fmt.Sprintf(`{"variant_id":%d,"quantity":1}`, variant))
	}

	e2etest.Check(t, buy("ann", small), e2etest.Want{Status: 202})
	e2etest.Check(t, buy("bob", small), e2etest.Want{Status: 202}) // the last S: the gate now sees none left
	for _, user := range []string{"cy", "dee"} {                   // cy's answer is Redis's, dee's the mark's
		r := buy(user, small)
		e2etest.Check(t, r, e2etest.Want{Status: 410, Code: "sold_out"})
		if got := fmt.Sprint(r.Body["error"].(map[string]any)["available_variants"]); got != fmt.Sprintf("[%d]", medium) {
			t.Fatalf("%s: sold-out answer offers %s, want [%d] (%s)", user, got, medium, r.Raw)
		}
	}
	if n := e2etest.Metric(t, s, "gated_sold_out"); n != 1 {
		t.Fatalf("%d answers from the variant's mark, want 1 (dee's)", n)
	}
	e2etest.Check(t, buy("cy", medium), e2etest.Want{Status: 202})
}
