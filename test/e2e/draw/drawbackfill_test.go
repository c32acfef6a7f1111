package draw

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestDrawBackfillSellsEveryUnit runs a draw of three sizes on two servers
// (the draw job may run on either) with many more entries than units, and
// winners who buy, let their window lapse, or buy and cancel, round after
// round, until every unit is sold. No shopper is offered twice or holds two
// orders, units pass strictly down each ranking, and every unit ends sold.
func TestDrawBackfillSellsEveryUnit(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk)
	s2 := s.Twin(t, clk)
	id, sizes := s.CreateDraw(t, e2etest.DrawBody(e2etest.T0, e2etest.Size("EU 40", 5), e2etest.Size("EU 41", 5), e2etest.Size("EU 42", 5)))
	path := "/api/v1/items/" + e2etest.Itoa(id)
	labels := []string{"EU 40", "EU 41", "EU 42"}

	const n = 90
	tokens := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			srv := s
			if i%2 == 1 {
				srv = s2
			}
			u := fmt.Sprintf("backfill-%02d", i)
			tokens[i] = srv.Login(t, u)
			r := srv.Enter(t, id, tokens[i], sizes[labels[i%3]])
			if r.Status != 200 {
				t.Errorf("enter %s: %d %s", u, r.Status, r.Raw)
			}
		})
	}
	wg.Wait()
	clk.Add(10 * time.Minute)
	testenv.WaitFor(t, 10*time.Second, func() bool { return s2.Draw(t, id).Phase == "drawn" }, "the draw never ran")
	rank := e2etest.Rankings(t, s.Draw(t, id))

	rng := rand.New(rand.NewPCG(17, 1))
	decided := map[int]bool{}
	cancelledOnce := map[int]bool{}
	for round := 0; ; round++ {
		if round > 40 {
			t.Fatal("units still unsold after 40 rounds")
		}
		// Every shopper with an open offer decides: buy, let it lapse, or
		// buy and cancel.
		for i := range n {
			srv := []*e2etest.Server{s, s2}[i%2]
			e := srv.Call(t, "GET", path+"/entry", tokens[i], nil)
			if e.Str("result") != "won" || e.Str("purchase_token") == "" || decided[i] {
				continue
			}
			decided[i] = true
			switch rng.IntN(4) {
			case 0: // lets the window lapse
			case 1:
				r := buyDrawn(t, srv, path, tokens[i], int64(e2etest.Num(e.Body, "variant_id")), e.Str("purchase_token"))
				waitOrder(t, s, r.Str("order_id"))
				if c := srv.Call(t, "POST", "/api/v1/orders/"+r.Str("order_id")+"/cancel", tokens[i], nil); c.Status != 200 {
					t.Fatalf("cancel: %d %s", c.Status, c.Raw)
				}
				cancelledOnce[i] = true
			default:
				buyDrawn(t, srv, path, tokens[i], int64(e2etest.Num(e.Body, "variant_id")), e.Str("purchase_token"))
			}
		}
		sold := soldPerVariant(t, s, id)
		if sold[sizes["EU 40"]] == 5 && sold[sizes["EU 41"]] == 5 && sold[sizes["EU 42"]] == 5 {
			break
		}
		// The windows lapse; the job passes every free unit on.
		clk.Add(61 * time.Second)
		testenv.WaitFor(t, 10*time.Second, func() bool { return passedOn(t, s, id, clk.Now()) },
			"free units were not passed on after the windows lapsed")
	}

	// Offers went down each ranking with no gap, each shopper once.
	var offered []struct {
		VariantID int64
		Place     int
		UserID    string
	}
	if err := s.Db.Gorm.Raw("SELECT variant_id, place, user_id FROM draw_entries WHERE item_id = ? AND offer_state IS NOT NULL "+
		"ORDER BY variant_id, place", id).Scan(&offered).Error; err != nil {
		t.Fatal(err)
	}
	next := map[int64]int{}
	for _, o := range offered {
		next[o.VariantID]++
		if o.Place != next[o.VariantID] {
			t.Fatalf("variant %d offered place %d after %d: the ranking was skipped", o.VariantID, o.Place, next[o.VariantID]-1)
		}
	}
	for v, r := range rank {
		if next[v] > len(r) {
			t.Fatalf("variant %d: %d offers for %d entries", v, next[v], len(r))
		}
	}
	var holders []struct {
		UserID string
		N      int
	}
	if err := s.Db.Gorm.Raw("SELECT o.user_id, COUNT(*) AS n FROM orders o LEFT JOIN draw_entries e ON e.item_id = o.item_id "+
		"AND e.user_id = o.user_id AND e.variant_id = o.variant_id AND e.offer_state IS NOT NULL "+
		"WHERE o.item_id = ? AND (o.status <> 'cancelled' OR e.user_id IS NULL) GROUP BY o.user_id HAVING n > 1 OR MAX(e.user_id) IS NULL",
		id).Scan(&holders).Error; err != nil {
		t.Fatal(err)
	}
	if len(holders) != 0 {
		t.Fatalf("orders held twice, or by shoppers never offered a unit of their size: %v", holders)
	}
	if st := s.Settle(t, id); e2etest.Num(st.Body, "stock") != 0 || st.Body["consistent"] != true {
		t.Fatalf("after every unit sold: %s", st.Raw)
	}
	t.Logf("%d offers over %d entries sold 15 units; %d cancelled", len(offered), n, len(cancelledOnce))
}

func buyDrawn(t *testing.T, s *e2etest.Server, path, tok string, variant int64, ptok string) e2etest.Reply {
	t.Helper()
	r := s.Call(t, "POST", path+"/purchase", tok, map[string]any{"variant_id": variant, "quantity": 1}, "X-Purchase-Token", ptok)
	if r.Status != 202 {
		t.Fatalf("purchase by a drawn shopper: %d %s", r.Status, r.Raw)
	}
	return r
}

// waitOrder waits until MySQL holds order id.
func waitOrder(t *testing.T, s *e2etest.Server, id string) {
	t.Helper()
	testenv.WaitFor(t, 10*time.Second, func() bool {
		var n int
		if err := s.Db.Gorm.Raw("SELECT COUNT(*) FROM orders WHERE id = ?", id).Scan(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n == 1
	}, "order was not persisted")
}

// soldPerVariant counts the sale's units sold per variant, as Redis sees
// them: stock_total minus stock left.
func soldPerVariant(t *testing.T, s *e2etest.Server, id int64) map[int64]int {
	t.Helper()
	out := map[int64]int{}
	for _, v := range s.Stats(t, id).Body["variants"].([]any) {
		m := v.(map[string]any)
		out[int64(m["variant_id"].(float64))] = e2etest.Num(m, "stock_total") - e2etest.Num(m, "stock_redis")
	}
	return out
}

// passedOn says whether the draw job has settled every lapsed offer and
// offered every free unit of each variant that still has entries waiting.
func passedOn(t *testing.T, s *e2etest.Server, id int64, now time.Time) bool {
	t.Helper()
	var lapsed int
	if err := s.Db.Gorm.Raw("SELECT COUNT(*) FROM draw_entries WHERE item_id = ? AND offer_state = 'open' AND deadline <= ?", id, now).
		Scan(&lapsed).Error; err != nil {
		t.Fatal(err)
	}
	if lapsed > 0 {
		return false
	}
	for _, v := range s.Stats(t, id).Body["variants"].([]any) {
		m := v.(map[string]any)
		var open, waiting int
		if err := s.Db.Gorm.Raw("SELECT COALESCE(SUM(offer_state = 'open'), 0), COALESCE(SUM(offer_state IS NULL), 0) FROM draw_entries "+
			"WHERE item_id = ? AND variant_id = ?", id, int64(m["variant_id"].(float64))).Row().Scan(&open, &waiting); err != nil {
			t.Fatal(err)
		}
		if e2etest.Num(m, "stock_redis") > open && waiting > 0 {
			return false
		}
	}
	return true
}
