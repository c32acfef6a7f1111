package draw

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// drawnSale creates a draw of one size with units, enters the shoppers
// (one each, in order) and draws it; it returns the sale's id, the size's
// id and the shoppers' tokens in ranking order.
func drawnSale(t *testing.T, s *e2etest.Server, clk *e2etest.Clock, units int, shoppers ...string) (int64, int64, []string) {
	t.Helper()
	id, sizes := s.CreateDraw(t, e2etest.DrawBody(clk.Now(), e2etest.Size("EU 42", units)))
	v := sizes["EU 42"]
	byEntry := map[string]string{}
	for _, u := range shoppers {
		tok := s.Login(t, u)
		r := s.Enter(t, id, tok, v)
		if r.Status != 200 {
			t.Fatalf("enter %s: %d %s", u, r.Status, r.Raw)
		}
		byEntry[r.Str("entry_id")] = tok
	}
	clk.Add(10 * time.Minute)
	testenv.WaitFor(t, 10*time.Second, func() bool { return s.Draw(t, id).Phase == "drawn" }, "the draw never ran")
	d := s.Draw(t, id)
	var ranked []string
	for _, e := range e2etest.Rankings(t, d)[v] {
		ranked = append(ranked, byEntry[e])
	}
	return id, v, ranked
}

// TestDrawRules: what admins may change on a draw, and what shoppers are
// told when they do.
func TestDrawRules(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk)

	t.Run("one unit per offer, whatever the limit", func(t *testing.T) {
		id, v, ranked := drawnSale(t, s, clk, 2, "lim-a", "lim-b", "lim-c")
		if r := s.Call(t, "PATCH", "/api/v1/admin/items/"+e2etest.Itoa(id), e2etest.AdminToken, map[string]any{"per_user_limit": 3}); r.Status != 400 {
			t.Fatalf("a draw's limit raised: %d %s", r.Status, r.Raw)
		}
		e := s.Entry(t, id, ranked[0])
		r := s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", ranked[0], map[string]any{"variant_id": v, "quantity": 2},
			"X-Purchase-Token", e.Str("purchase_token"))
		if r.Status == 202 {
			t.Fatalf("a winner bought 2 units with one offer: %s", r.Raw)
		}
	})

	t.Run("a pause holds the windows", func(t *testing.T) {
		id, v, ranked := drawnSale(t, s, clk, 1, "pause-a", "pause-b")
		path := "/api/v1/items/" + e2etest.Itoa(id)
		if r := s.Call(t, "POST", "/api/v1/admin/items/"+e2etest.Itoa(id)+"/pause", e2etest.AdminToken, nil); r.Status != 200 {
			t.Fatalf("pause: %d %s", r.Status, r.Raw)
		}
		clk.Add(5 * time.Minute) // the 60-second window would have lapsed
		testenv.WaitFor(t, 10*time.Second, func() bool {
			e := s.Entry(t, id, ranked[0])
			d, _ := time.Parse(time.RFC3339Nano, e.Str("purchase_deadline"))
			return d.Sub(clk.Now()) >= 59*time.Second
		}, "the winner's window ran while the sale was paused")
		if r := s.Call(t, "POST", "/api/v1/admin/items/"+e2etest.Itoa(id)+"/resume", e2etest.AdminToken, nil); r.Status != 200 {
			t.Fatalf("resume: %d %s", r.Status, r.Raw)
		}
		e := s.Entry(t, id, ranked[0])
		if r := buyDrawn(t, s, path, ranked[0], v, e.Str("purchase_token")); r.Str("order_id") == "" {
			t.Fatalf("purchase after the resume: %s", r.Raw)
		}
		if e := s.Entry(t, id, ranked[1]); e.Str("result") != "waitlist" {
			t.Fatalf("the second shopper after the winner bought: %s", e.Raw)
		}
	})

	t.Run("drawn stock is added to, not cut", func(t *testing.T) {
		id, v, ranked := drawnSale(t, s, clk, 2, "cut-a", "cut-b", "cut-c")
		vpath := "/api/v1/admin/items/" + e2etest.Itoa(id) + "/variants/" + e2etest.Itoa(v)
		if r := s.Call(t, "PATCH", vpath, e2etest.AdminToken, map[string]any{"stock_total": 1}); r.Status != 409 || r.ErrCode() != "stock_conflict" {
			t.Fatalf("a drawn size cut: %d %s", r.Status, r.Raw)
		}
		if r := s.Call(t, "PATCH", vpath, e2etest.AdminToken, map[string]any{"stock_total": 3}); r.Status != 200 {
			t.Fatalf("a drawn size added to: %d %s", r.Status, r.Raw)
		}
		testenv.WaitFor(t, 10*time.Second, func() bool { return s.Entry(t, id, ranked[2]).Str("result") == "won" },
			"the unit added was not offered to the waitlist")
	})

	t.Run("a draw ended during its entries is not drawn", func(t *testing.T) {
		created := s.Call(t, "POST", "/api/v1/admin/items", e2etest.AdminToken, e2etest.DrawBody(clk.Now(), e2etest.Size("EU 42", 1), e2etest.Size("EU 43", 1)))
		id, v := int64(e2etest.Num(created.Body, "id")), e2etest.VariantIDs(t, created)["EU 42"]
		tok := s.Login(t, "ended-a")
		if r := s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/entry", tok, map[string]any{}, "X-Proof-Of-Work", s.Proof(t, id, tok)); r.Status != 400 ||
			r.ErrCode() != "variant_required" {
			t.Fatalf("an entry naming no size of two: %d %s", r.Status, r.Raw)
		}
		if r := s.Enter(t, id, tok, v); r.Status != 200 {
			t.Fatalf("enter: %d %s", r.Status, r.Raw)
		}
		if r := s.Call(t, "DELETE", "/api/v1/admin/items/"+e2etest.Itoa(id)+"/variants/"+e2etest.Itoa(v), e2etest.AdminToken, nil); r.Status != 409 {
			t.Fatalf("a size deleted while entries are open: %d %s", r.Status, r.Raw)
		}
		if r := s.Call(t, "POST", "/api/v1/admin/items/"+e2etest.Itoa(id)+"/end", e2etest.AdminToken, nil); r.Status != 200 {
			t.Fatalf("end: %d %s", r.Status, r.Raw)
		}
		if r := s.Enter(t, id, s.Login(t, "ended-b"), v); r.Status != 409 || r.ErrCode() != "entries_closed" {
			t.Fatalf("an entry after the end: %d %s", r.Status, r.Raw)
		}
		clk.Add(10 * time.Minute)
		if d := s.Draw(t, id); d.Phase != "ended" || d.Seed != nil {
			t.Fatalf("an ended draw: %+v", d)
		}
		if e := s.Entry(t, id, tok); e.Str("result") != "lost" {
			t.Fatalf("an entry of an ended draw: %s", e.Raw)
		}
	})

	t.Run("waitlists lost once every unit is paid", func(t *testing.T) {
		id, v, ranked := drawnSale(t, s, clk, 1, "paid-a", "paid-b")
		e := s.Entry(t, id, ranked[0])
		r := buyDrawn(t, s, "/api/v1/items/"+e2etest.Itoa(id), ranked[0], v, e.Str("purchase_token"))
		waitOrder(t, s, r.Str("order_id"))
		if p := s.Call(t, "POST", "/api/v1/orders/"+r.Str("order_id")+"/pay", ranked[0], nil); p.Status != 200 {
			t.Fatalf("pay: %d %s", p.Status, p.Raw)
		}
		testenv.WaitFor(t, 10*time.Second, func() bool { return s.Entry(t, id, ranked[1]).Str("result") == "lost" },
			"the waitlist was not told it lost once the only unit was paid")
	})

	t.Run("a buyer is not offered again when Redis lost the offers", func(t *testing.T) {
		id, v, ranked := drawnSale(t, s, clk, 1, "lost-a", "lost-b")
		path := "/api/v1/items/" + e2etest.Itoa(id)
		e := s.Entry(t, id, ranked[0])
		order := buyDrawn(t, s, path, ranked[0], v, e.Str("purchase_token")).Str("order_id")
		waitOrder(t, s, order)
		// MySQL has not heard of the purchase yet, and Redis loses the offers.
		if err := s.Db.Gorm.Exec("UPDATE draw_entries SET offer_state = 'open' WHERE item_id = ? AND offer_state IS NOT NULL", id).Error; err != nil {
			t.Fatal(err)
		}
		rdb := redis.NewClient(&redis.Options{Addr: s.Cfg.Redis.Addr})
		defer rdb.Close()
		if err := rdb.Del(context.Background(), keyspace.New(s.Cfg.RedisPrefix).Item(id).DrawOffers()).Err(); err != nil {
			t.Fatal(err)
		}
		testenv.WaitFor(t, 10*time.Second, func() bool {
			var state string
			if err := s.Db.Gorm.Raw("SELECT offer_state FROM draw_entries WHERE item_id = ? AND place = 1", id).Scan(&state).Error; err != nil {
				t.Fatal(err)
			}
			return state == "bought"
		}, "the job did not find the purchase")
		if c := s.Call(t, "POST", "/api/v1/orders/"+order+"/cancel", ranked[0], nil); c.Status != 200 {
			t.Fatalf("cancel: %d %s", c.Status, c.Raw)
		}
		if r := s.Call(t, "POST", path+"/purchase", ranked[0], map[string]any{"variant_id": v, "quantity": 1}, "X-Purchase-Token",
			s.Entry(t, id, ranked[0]).Str("purchase_token")); r.Status != 403 {
			t.Fatalf("the buyer bought again after cancelling: %d %s", r.Status, r.Raw)
		}
		testenv.WaitFor(t, 10*time.Second, func() bool { return s.Entry(t, id, ranked[1]).Str("result") == "won" },
			"the cancelled unit did not pass to the next")
	})
}
