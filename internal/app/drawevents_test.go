package app_test

import (
	"testing"
	"time"

	"github.com/seckill/seckill/internal/testenv"
)

// TestDrawTellsTheShop: the shop's receiver hears of the draw once, and of
// each unit offered, at the draw and passed down, with the shopper and the
// deadline the shopper sees, so the shop can e-mail winners who closed the
// page.
func TestDrawTellsTheShop(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	hook := acceptingReceiver(t)
	s := start(t, clk, hooksTo(hook, time.Hour))
	id, v, ranked := drawnSale(t, s, clk, 2, "hook-a", "hook-b", "hook-c", "hook-d")
	users := map[string]string{}
	for _, u := range []string{"hook-a", "hook-b", "hook-c", "hook-d"} {
		users[s.entry(t, id, s.login(t, u)).str("entry_id")] = u
	}
	offers := func() []hookEvent {
		hook.mu.Lock()
		defer hook.mu.Unlock()
		var out []hookEvent
		drawn := 0
		for _, e := range hook.events {
			switch e.Type {
			case "draw.offered":
				out = append(out, e)
			case "sale.drawn":
				drawn++
				if num(e.Data, "id") != int(id) {
					t.Errorf("sale.drawn about sale %v", e.Data["id"])
				}
			}
		}
		if drawn > 1 {
			t.Errorf("sale.drawn %d times", drawn)
		}
		return out
	}
	check := func(e hookEvent, tok string, backfill bool) {
		t.Helper()
		got := s.entry(t, id, tok)
		if e.Data["entry_id"] != got.str("entry_id") || users[got.str("entry_id")] != e.Data["user_id"] ||
			int64(num(e.Data, "variant_id")) != v || e.Data["purchase_deadline"] != got.str("purchase_deadline") ||
			e.Data["backfill"] != backfill {
			t.Fatalf("draw.offered %v; the shopper sees %s", e.Data, got.raw)
		}
	}
	testenv.WaitFor(t, 10*time.Second, func() bool { return len(offers()) == 2 }, "the draw's offers were not announced")
	got := offers()
	for i, e := range got {
		if num(e.Data, "place") != i+1 && num(e.Data, "place") != 2-i {
			t.Fatalf("offer at place %v", e.Data["place"])
		}
		check(e, ranked[num(e.Data, "place")-1], false)
	}
	clk.Add(61 * time.Second) // both windows lapse: the units pass to places 3 and 4
	testenv.WaitFor(t, 10*time.Second, func() bool { return len(offers()) == 4 }, "the units passed down were not announced")
	for _, e := range offers()[2:] {
		if p := num(e.Data, "place"); p != 3 && p != 4 {
			t.Fatalf("a unit passed to place %d", p)
		}
		check(e, ranked[num(e.Data, "place")-1], true)
	}
}
