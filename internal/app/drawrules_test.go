package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/testenv"
)

// drawnSale creates a draw of one size with units, enters the shoppers
// (one each, in order) and draws it; it returns the sale's id, the size's
// id and the shoppers' tokens in ranking order.
func drawnSale(t *testing.T, s *server, clk *clock, units int, shoppers ...string) (int64, int64, []string) {
	t.Helper()
	created := s.call(t, "POST", "/api/v1/admin/items", adminToken, drawBody(clk.Now(), size("EU 42", units)))
	if created.status != 201 {
		t.Fatalf("create draw: %s", created.raw)
	}
	id, v := int64(num(created.body, "id")), variantIDs(t, created)["EU 42"]
	byEntry := map[string]string{}
	for _, u := range shoppers {
		tok := s.login(t, u)
		r := s.enter(t, id, tok, v)
		if r.status != 200 {
			t.Fatalf("enter %s: %d %s", u, r.status, r.raw)
		}
		byEntry[r.str("entry_id")] = tok
	}
	clk.Add(10 * time.Minute)
	testenv.WaitFor(t, 10*time.Second, func() bool { return s.draw(t, id).Phase == "drawn" }, "the draw never ran")
	d := s.draw(t, id)
	var ranked []string
	for _, e := range d.rankings(t)[v] {
		ranked = append(ranked, byEntry[e])
	}
	return id, v, ranked
}

func (s *server) entry(t *testing.T, id int64, tok string) reply {
	t.Helper()
	return s.call(t, "GET", "/api/v1/items/"+itoa(id)+"/entry", tok, nil)
}

// TestDrawRules: what admins may change on a draw, and what shoppers are
// told when they do.
func TestDrawRules(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk)

	t.Run("one unit per offer, whatever the limit", func(t *testing.T) {
		id, v, ranked := drawnSale(t, s, clk, 2, "lim-a", "lim-b", "lim-c")
		if r := s.call(t, "PATCH", "/api/v1/admin/items/"+itoa(id), adminToken, map[string]any{"per_user_limit": 3}); r.status != 400 {
			t.Fatalf("a draw's limit raised: %d %s", r.status, r.raw)
		}
		e := s.entry(t, id, ranked[0])
		r := s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", ranked[0], map[string]any{"variant_id": v, "quantity": 2},
			"X-Purchase-Token", e.str("purchase_token"))
		if r.status == 202 {
			t.Fatalf("a winner bought 2 units with one offer: %s", r.raw)
		}
	})

	t.Run("a pause holds the windows", func(t *testing.T) {
		id, v, ranked := drawnSale(t, s, clk, 1, "pause-a", "pause-b")
		path := "/api/v1/items/" + itoa(id)
		if r := s.call(t, "POST", "/api/v1/admin/items/"+itoa(id)+"/pause", adminToken, nil); r.status != 200 {
			t.Fatalf("pause: %d %s", r.status, r.raw)
		}
		clk.Add(5 * time.Minute) // the 60-second window would have lapsed
		testenv.WaitFor(t, 10*time.Second, func() bool {
			e := s.entry(t, id, ranked[0])
			d, _ := time.Parse(time.RFC3339Nano, e.str("purchase_deadline"))
			return d.Sub(clk.Now()) >= 59*time.Second
		}, "the winner's window ran while the sale was paused")
		if r := s.call(t, "POST", "/api/v1/admin/items/"+itoa(id)+"/resume", adminToken, nil); r.status != 200 {
			t.Fatalf("resume: %d %s", r.status, r.raw)
		}
		e := s.entry(t, id, ranked[0])
		if r := buyDrawn(t, s, path, ranked[0], v, e.str("purchase_token")); r.str("order_id") == "" {
			t.Fatalf("purchase after the resume: %s", r.raw)
		}
		if e := s.entry(t, id, ranked[1]); e.str("result") != "waitlist" {
			t.Fatalf("the second shopper after the winner bought: %s", e.raw)
		}
	})

	t.Run("drawn stock is added to, not cut", func(t *testing.T) {
		id, v, ranked := drawnSale(t, s, clk, 2, "cut-a", "cut-b", "cut-c")
		vpath := "/api/v1/admin/items/" + itoa(id) + "/variants/" + itoa(v)
		if r := s.call(t, "PATCH", vpath, adminToken, map[string]any{"stock_total": 1}); r.status != 409 || r.errCode() != "stock_conflict" {
			t.Fatalf("a drawn size cut: %d %s", r.status, r.raw)
		}
		if r := s.call(t, "PATCH", vpath, adminToken, map[string]any{"stock_total": 3}); r.status != 200 {
			t.Fatalf("a drawn size added to: %d %s", r.status, r.raw)
		}
		testenv.WaitFor(t, 10*time.Second, func() bool { return s.entry(t, id, ranked[2]).str("result") == "won" },
			"the unit added was not offered to the waitlist")
	})

	t.Run("a draw ended during its entries is not drawn", func(t *testing.T) {
		created := s.call(t, "POST", "/api/v1/admin/items", adminToken, drawBody(clk.Now(), size("EU 42", 1), size("EU 43", 1)))
		id, v := int64(num(created.body, "id")), variantIDs(t, created)["EU 42"]
		tok := s.login(t, "ended-a")
		if r := s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/entry", tok, map[string]any{}, "X-Proof-Of-Work", s.proof(t, id, tok)); r.status != 400 ||
			r.errCode() != "variant_required" {
			t.Fatalf("an entry naming no size of two: %d %s", r.status, r.raw)
		}
		if r := s.enter(t, id, tok, v); r.status != 200 {
			t.Fatalf("enter: %d %s", r.status, r.raw)
		}
		if r := s.call(t, "DELETE", "/api/v1/admin/items/"+itoa(id)+"/variants/"+itoa(v), adminToken, nil); r.status != 409 {
			t.Fatalf("a size deleted while entries are open: %d %s", r.status, r.raw)
		}
		if r := s.call(t, "POST", "/api/v1/admin/items/"+itoa(id)+"/end", adminToken, nil); r.status != 200 {
			t.Fatalf("end: %d %s", r.status, r.raw)
		}
		if r := s.enter(t, id, s.login(t, "ended-b"), v); r.status != 409 || r.errCode() != "entries_closed" {
			t.Fatalf("an entry after the end: %d %s", r.status, r.raw)
		}
		clk.Add(10 * time.Minute)
		if d := s.draw(t, id); d.Phase != "ended" || d.Seed != nil {
			t.Fatalf("an ended draw: %+v", d)
		}
		if e := s.entry(t, id, tok); e.str("result") != "lost" {
			t.Fatalf("an entry of an ended draw: %s", e.raw)
		}
	})

	t.Run("waitlists lost once every unit is paid", func(t *testing.T) {
		id, v, ranked := drawnSale(t, s, clk, 1, "paid-a", "paid-b")
		e := s.entry(t, id, ranked[0])
		r := buyDrawn(t, s, "/api/v1/items/"+itoa(id), ranked[0], v, e.str("purchase_token"))
		waitOrder(t, s, r.str("order_id"))
		if p := s.call(t, "POST", "/api/v1/orders/"+r.str("order_id")+"/pay", ranked[0], nil); p.status != 200 {
			t.Fatalf("pay: %d %s", p.status, p.raw)
		}
		testenv.WaitFor(t, 10*time.Second, func() bool { return s.entry(t, id, ranked[1]).str("result") == "lost" },
			"the waitlist was not told it lost once the only unit was paid")
	})

	t.Run("a buyer is not offered again when Redis lost the offers", func(t *testing.T) {
		id, v, ranked := drawnSale(t, s, clk, 1, "lost-a", "lost-b")
		path := "/api/v1/items/" + itoa(id)
		e := s.entry(t, id, ranked[0])
		order := buyDrawn(t, s, path, ranked[0], v, e.str("purchase_token")).str("order_id")
		waitOrder(t, s, order)
		// MySQL has not heard of the purchase yet, and Redis loses the offers.
		if err := s.db.Gorm.Exec("UPDATE draw_entries SET offer_state = 'open' WHERE item_id = ? AND offer_state IS NOT NULL", id).Error; err != nil {
			t.Fatal(err)
		}
		rdb := redis.NewClient(&redis.Options{Addr: s.cfg.Redis.Addr})
		defer rdb.Close()
		if err := rdb.Del(context.Background(), keyspace.New(s.cfg.RedisPrefix).Item(id).DrawOffers()).Err(); err != nil {
			t.Fatal(err)
		}
		testenv.WaitFor(t, 10*time.Second, func() bool {
			var state string
			if err := s.db.Gorm.Raw("SELECT offer_state FROM draw_entries WHERE item_id = ? AND place = 1", id).Scan(&state).Error; err != nil {
				t.Fatal(err)
			}
			return state == "bought"
		}, "the job did not find the purchase")
		if c := s.call(t, "POST", "/api/v1/orders/"+order+"/cancel", ranked[0], nil); c.status != 200 {
			t.Fatalf("cancel: %d %s", c.status, c.raw)
		}
		if r := s.call(t, "POST", path+"/purchase", ranked[0], map[string]any{"variant_id": v, "quantity": 1}, "X-Purchase-Token",
			s.entry(t, id, ranked[0]).str("purchase_token")); r.status != 403 {
			t.Fatalf("the buyer bought again after cancelling: %d %s", r.status, r.raw)
		}
		testenv.WaitFor(t, 10*time.Second, func() bool { return s.entry(t, id, ranked[1]).str("result") == "won" },
			"the cancelled unit did not pass to the next")
	})
}
