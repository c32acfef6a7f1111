package draw

import (
	"testing"
	"time"

	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestDrawTellsTheShop: the shop's receiver hears of the draw once, and of
// each unit offered, at the draw and passed down, with the shopper and the
// deadline the shopper sees, so the shop can e-mail winners who closed the
// page.
func TestDrawTellsTheShop(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	hook := e2etest.AcceptingReceiver(t)
	s := e2etest.Start(t, clk, e2etest.HooksTo(hook, time.Hour))
	id, v, ranked := drawnSale(t, s, clk, 2, "hook-a", "hook-b", "hook-c", "hook-d")
	users := map[string]string{}
	for _, u := range []string{"hook-a", "hook-b", "hook-c", "hook-d"} {
		users[s.Entry(t, id, s.Login(t, u)).Str("entry_id")] = u
	}
	// offers returns the draw.offered events taken, and how many sale.drawn.
	offers := func() ([]e2etest.HookEvent, int) {
		hook.Mu.Lock()
		defer hook.Mu.Unlock()
		var out []e2etest.HookEvent
		drawn := 0
		for _, e := range hook.Events {
			switch e.Type {
			case "draw.offered":
				out = append(out, e)
			case "sale.drawn":
				drawn++
				if e2etest.Num(e.Data, "id") != int(id) {
					t.Errorf("sale.drawn about sale %v", e.Data["id"])
				}
			}
		}
		return out, drawn
	}
	// each checks that evs are one offer to each of the shoppers toks, as
	// each shopper's page shows it.
	each := func(evs []e2etest.HookEvent, backfill bool, toks ...string) {
		t.Helper()
		byEntry := map[string]e2etest.HookEvent{}
		for _, e := range evs {
			byEntry[e.Data["entry_id"].(string)] = e
		}
		if len(byEntry) != len(evs) || len(evs) != len(toks) {
			t.Fatalf("%d draw.offered events for %d entries, want one each for %d", len(evs), len(byEntry), len(toks))
		}
		for _, tok := range toks {
			got := s.Entry(t, id, tok)
			e, ok := byEntry[got.Str("entry_id")]
			if !ok || users[got.Str("entry_id")] != e.Data["user_id"] || int64(e2etest.Num(e.Data, "variant_id")) != v ||
				e.Data["purchase_deadline"] != got.Str("purchase_deadline") || e.Data["backfill"] != backfill ||
				e2etest.Num(e.Data, "place") != e2etest.Num(got.Body, "position") {
				t.Fatalf("draw.offered %v; the shopper sees %s", e.Data, got.Raw)
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
