package app_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/testenv"
)

// TestWaitingRoomChance follows 7 shoppers through a room of 4 units, one
// each, at one admission a second: the chance each is shown at the opening,
// the sell-out told to those left waiting with what can still come back, a
// cancel and then a payment timeout each giving a unit to the next in line,
// whose chance shows again, and the sell-out becoming final, on the room's
// live stream too, once every unit taken is paid for.
func TestWaitingRoomChance(t *testing.T) {
	t.Parallel()
	const stock, shoppers = 4, 7
	clk := newClock(t0)
	opens := t0.Add(10 * time.Second)
	s := start(t, clk, func(c *config.Config) { c.PaymentTimeout, c.SweepEvery = 10*time.Minute, 50*time.Millisecond })
	id := roomSale(t, s, stock, 1, opens)
	roomPath := "/api/v1/items/" + itoa(id) + "/room"
	tokens := make([]string, shoppers)
	for i := range tokens {
		tokens[i] = mintToken(t, fmt.Sprintf("chance%d", i))
		if r := s.call(t, "POST", roomPath, tokens[i], nil); r.status != 200 || r.body["chance"] != nil {
			t.Fatalf("a chance before the opening draw: %s", r.raw)
		}
	}
	clk.Set(opens)
	pos := positions(t, []*server{s, s}, roomPath, tokens)
	p := make([]string, shoppers+1) // place (1-based) -> token
	for i, at := range pos {
		p[at] = tokens[i]
	}
	look := func(place int) reply { return s.call(t, "GET", roomPath, p[place], nil) }

	// At the opening place 1 holds a turn: the next three would get a unit
	// even if everyone before bought; 5 and 6 only if someone does not.
	wantChance(t, look(1), nil)
	wantChance(t, look(2), &chance{"likely", 4, 1, 1, 0, nil, false})
	wantChance(t, look(4), &chance{"likely", 4, 1, 1, 2, nil, false})
	wantChance(t, look(5), &chance{"unlikely", 4, 1, 1, 3, nil, false})
	wantChance(t, look(7), &chance{"unlikely", 4, 1, 1, 5, nil, false})

	// Places 1-4 get their turns and buy: those left are told sold out,
	// and that the 4 unpaid units may still come back.
	clk.Set(opens.Add(3 * time.Second))
	orders := map[int]string{}
	for place := 1; place <= stock; place++ {
		buyAdmitted(t, s, id, roomPath, p[place])
	}
	s.settle(t, id)
	for place := 1; place <= stock; place++ {
		orders[place] = onlyOrder(t, s, p[place])
	}
	for place := 5; place <= 7; place++ {
		r := look(place)
		wantState(t, r, "sold_out")
		wantChance(t, r, &chance{"sold_out", 0, 0, 1, place - 5, ptr(4), false})
	}

	// Place 3 cancels: the next in line sees a chance again at once, and
	// gets the turn at the next admission.
	check(t, s.call(t, "POST", "/api/v1/orders/"+orders[3]+"/cancel", p[3], nil), want{200, "", ""})
	wantChance(t, look(5), &chance{"likely", 1, 0, 1, 0, nil, false})
	wantChance(t, look(6), &chance{"unlikely", 1, 0, 1, 1, nil, false})
	clk.Set(opens.Add(4 * time.Second))
	wantState(t, look(5), "admitted")
	wantChance(t, look(6), &chance{"unlikely", 1, 1, 1, 0, nil, false})
	buyAdmitted(t, s, id, roomPath, p[5])
	s.settle(t, id)
	orders[5] = onlyOrder(t, s, p[5])

	// Paid orders cannot come back; place 4's unpaid one still can.
	for _, place := range []int{1, 2, 5} {
		check(t, s.call(t, "POST", "/api/v1/orders/"+orders[place]+"/pay", p[place], nil), want{200, "", ""})
	}
	eventually(t, "place 6 told 1 unit can come back", func() bool {
		return sameChance(look(6), &chance{"sold_out", 0, 0, 1, 0, ptr(1), false})
	})

	// Place 4 does not pay in time: the payment timeout returns its unit,
	// and the room gives it to place 6 by itself.
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	live := follow(t, ctx, s, roomPath+"/events", "")
	clk.Set(opens.Add(11 * time.Minute))
	eventually(t, "place 6 admitted after the payment timeout", func() bool { return look(6).str("state") == "admitted" })
	wantChance(t, look(7), &chance{"unlikely", 1, 1, 1, 0, nil, false})

	// Place 6 buys the last unit and pays: nothing can come back, and
	// place 7 is told so, on the live stream as well.
	buyAdmitted(t, s, id, roomPath, p[6])
	s.settle(t, id)
	check(t, s.call(t, "POST", "/api/v1/orders/"+onlyOrder(t, s, p[6])+"/pay", p[6], nil), want{200, "", ""})
	eventually(t, "place 7 told the sell-out is final", func() bool {
		return sameChance(look(7), &chance{"sold_out", 0, 0, 1, 0, ptr(0), true})
	})
	deadline := time.After(10 * time.Second)
	for final := false; !final; {
		select {
		case ev := <-live:
			final = ev.name == "room" && ev.body["sold_out"] == true && ev.body["units_unpaid"] == float64(0)
		case <-deadline:
			t.Fatal("the room's live stream never said the sell-out is final")
		}
	}
	t.Logf("place 7 at the end: %s", look(7).raw)
}

// chance is what a room answer's chance object should hold; nil unpaid is
// a null units_unpaid.
type chance struct {
	outlook                     string
	left, holding, limit, ahead int
	unpaid                      *int
	final                       bool
}

func ptr(n int) *int { return &n }

func sameChance(r reply, want *chance) bool { return chanceDiff(r, want) == "" }

func chanceDiff(r reply, want *chance) string {
	c, _ := r.body["chance"].(map[string]any)
	switch {
	case want == nil && c == nil:
		return ""
	case want == nil || c == nil:
		return fmt.Sprintf("chance %v, want %+v", c, want)
	}
	num := func(k string) any { return c[k] }
	unpaid := any(nil)
	if want.unpaid != nil {
		unpaid = float64(*want.unpaid)
	}
	held := float64(min(want.left, want.holding*want.limit))
	got := []any{c["outlook"], num("units_left"), num("holding"), num("limit"), num("ahead"), num("units_unpaid"), c["final"], num("units_held")}
	exp := []any{want.outlook, float64(want.left), float64(want.holding), float64(want.limit), float64(want.ahead), unpaid, want.final, held}
	if fmt.Sprint(got) != fmt.Sprint(exp) {
		return fmt.Sprintf("chance %v, want %+v", c, *want)
	}
	return ""
}

func wantChance(t *testing.T, r reply, want *chance) {
	t.Helper()
	if d := chanceDiff(r, want); d != "" {
		t.Fatalf("%s\nanswer: %s", d, r.raw)
	}
}

func wantState(t *testing.T, r reply, state string) {
	t.Helper()
	if r.str("state") != state {
		t.Fatalf("state %q, want %q: %s", r.str("state"), state, r.raw)
	}
}

// eventually waits up to 10 s for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !testenv.Eventually(10*time.Second, cond) {
		t.Fatalf("waited 10 s for %s", what)
	}
}

// onlyOrder is the id of the shopper's one active order.
func onlyOrder(t *testing.T, s *server, tok string) string {
	t.Helper()
	r := s.call(t, "GET", "/api/v1/orders", tok, nil)
	list, _ := r.body["orders"].([]any)
	for _, o := range list {
		if m := o.(map[string]any); m["status"] != "cancelled" {
			return m["order_id"].(string)
		}
	}
	t.Fatalf("no active order: %s", r.raw)
	return ""
}
