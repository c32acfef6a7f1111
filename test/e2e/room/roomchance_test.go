package room

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
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
	clk := e2etest.NewClock(e2etest.T0)
	opens := e2etest.T0.Add(10 * time.Second)
	s := e2etest.Start(t, clk, func(c *config.Config) { c.PaymentTimeout, c.SweepEvery = 10*time.Minute, 50*time.Millisecond })
	id := e2etest.RoomSale(t, s, stock, 1, opens)
	roomPath := "/api/v1/items/" + e2etest.Itoa(id) + "/room"
	tokens := make([]string, shoppers)
	for i := range tokens {
		tokens[i] = e2etest.MintToken(t, fmt.Sprintf("chance%d", i))
		if r := s.Join(t, id, tokens[i]); r.Status != 200 || r.Body["chance"] != nil {
			t.Fatalf("a chance before the opening draw: %s", r.Raw)
		}
	}
	clk.Set(opens)
	pos := positions(t, []*e2etest.Server{s, s}, roomPath, tokens)
	p := make([]string, shoppers+1) // place (1-based) -> token
	for i, at := range pos {
		p[at] = tokens[i]
	}
	look := func(place int) e2etest.Reply { return s.Call(t, "GET", roomPath, p[place], nil) }

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
		e2etest.BuyAdmitted(t, s, id, roomPath, p[place])
	}
	s.Settle(t, id)
	for place := 1; place <= stock; place++ {
		orders[place] = e2etest.OnlyOrder(t, s, p[place])
	}
	for place := 5; place <= 7; place++ {
		r := look(place)
		wantState(t, r, "sold_out")
		wantChance(t, r, &chance{"sold_out", 0, 0, 1, place - 5, ptr(4), false})
	}

	// Place 3 cancels: the next in line sees a chance again at once, and
	// gets the turn at the next admission.
	e2etest.Check(t, s.Call(t, "POST", "/api/v1/orders/"+orders[3]+"/cancel", p[3], nil), e2etest.Want{Status: 200})
	wantChance(t, look(5), &chance{"likely", 1, 0, 1, 0, nil, false})
	wantChance(t, look(6), &chance{"unlikely", 1, 0, 1, 1, nil, false})
	clk.Set(opens.Add(4 * time.Second))
	wantState(t, look(5), "admitted")
	wantChance(t, look(6), &chance{"unlikely", 1, 1, 1, 0, nil, false})
	e2etest.BuyAdmitted(t, s, id, roomPath, p[5])
	s.Settle(t, id)
	orders[5] = e2etest.OnlyOrder(t, s, p[5])

	// Paid orders cannot come back; place 4's unpaid one still can.
	for _, place := range []int{1, 2, 5} {
		e2etest.Check(t, s.Call(t, "POST", "/api/v1/orders/"+orders[place]+"/pay", p[place], nil), e2etest.Want{Status: 200})
	}
	eventually(t, "place 6 told 1 unit can come back", func() bool {
		return sameChance(look(6), &chance{"sold_out", 0, 0, 1, 0, ptr(1), false})
	})

	// Place 4 does not pay in time: the payment timeout returns its unit,
	// and the room gives it to place 6 by itself.
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	live := e2etest.Follow(t, ctx, s, roomPath+"/events", "")
	clk.Set(opens.Add(11 * time.Minute))
	eventually(t, "place 6 admitted after the payment timeout", func() bool { return look(6).Str("state") == "admitted" })
	wantChance(t, look(7), &chance{"unlikely", 1, 1, 1, 0, nil, false})

	// Place 6 buys the last unit and pays: nothing can come back, and
	// place 7 is told so, on the live stream as well.
	e2etest.BuyAdmitted(t, s, id, roomPath, p[6])
	s.Settle(t, id)
	e2etest.Check(t, s.Call(t, "POST", "/api/v1/orders/"+e2etest.OnlyOrder(t, s, p[6])+"/pay", p[6], nil), e2etest.Want{Status: 200})
	eventually(t, "place 7 told the sell-out is final", func() bool {
		return sameChance(look(7), &chance{"sold_out", 0, 0, 1, 0, ptr(0), true})
	})
	deadline := time.After(10 * time.Second)
	for final := false; !final; {
		select {
		case ev := <-live:
			final = ev.Name == "room" && ev.Body["sold_out"] == true && ev.Body["units_unpaid"] == float64(0)
		case <-deadline:
			t.Fatal("the room's live stream never said the sell-out is final")
		}
	}
	t.Logf("place 7 at the end: %s", look(7).Raw)
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

func sameChance(r e2etest.Reply, want *chance) bool { return chanceDiff(r, want) == "" }

func chanceDiff(r e2etest.Reply, want *chance) string {
	c, _ := r.Body["chance"].(map[string]any)
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

func wantChance(t *testing.T, r e2etest.Reply, want *chance) {
	t.Helper()
	if d := chanceDiff(r, want); d != "" {
		t.Fatalf("%s\nanswer: %s", d, r.Raw)
	}
}

func wantState(t *testing.T, r e2etest.Reply, state string) {
	t.Helper()
	if r.Str("state") != state {
		t.Fatalf("state %q, want %q: %s", r.Str("state"), state, r.Raw)
	}
}

// eventually waits up to 10 s for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !testenv.Eventually(10*time.Second, cond) {
		t.Fatalf("waited 10 s for %s", what)
	}
}
