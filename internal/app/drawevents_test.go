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
	// offers returns the draw.offered events taken, and how many sale.drawn.
	offers := func() ([]hookEvent, int) {
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
		return out, drawn
	}
	// each checks that evs are one offer to each of the shoppers toks, as
	// each shopper's page shows it.
	each := func(evs []hookEvent, backfill bool, toks ...string) {
		t.Helper()
		byEntry := map[string]hookEvent{}
		for _, e := range evs {
			byEntry[e.Data["entry_id"].(string)] = e
		}
		if len(byEntry) != len(evs) || len(evs) != len(toks) {
			t.Fatalf("%d draw.offered events for %d entries, want one each for %d", len(evs), len(byEntry), len(toks))
		}
		for _, tok := range toks {
			got := s.entry(t, id, tok)
			e, ok := byEntry[got.str("entry_id")]
			if !ok || users[got.str("entry_id")] != e.Data["user_id"] || int64(num(e.Data, "variant_id")) != v ||
				e.Data["purchase_deadline"] != got.str("purchase_deadline") || e.Data["backfill"] != backfill ||
				num(e.Data, "place") != num(got.body, "position") {
				t.Fatalf("draw.offered %v; the shopper sees %s", e.Data, got.raw)
			}
		}
	}
	testenv.WaitFor(t, 10*time.Second, func() bool { evs, drawn := offers(); return len(evs) >= 2 && drawn >= 1 },
		"the draw and its offers were not announced")
	evs, drawn := offers()
	if drawn != 1 {
		t.Fatalf("sale.drawn %d times", drawn)
	}
	each(evs, false, ranked[0], ranked[1])
	clk.Add(61 * time.Second) // both windows lapse: the units pass to places 3 and 4
	testenv.WaitFor(t, 10*time.Second, func() bool { evs, _ := offers(); return len(evs) >= 4 },
		"the units passed down were not announced")
	evs, _ = offers()
	each(evs[2:], true, ranked[2], ranked[3])
}
