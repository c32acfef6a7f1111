package room_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/room"
)

// TestOutlook: the rules of the chance, at and around every boundary.
func TestOutlook(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		left, holding, ahead, limit int64
		want                        room.Outlook
		held                        int64
	}{
		{0, 0, 0, 1, room.SoldOut, 0},
		{0, 3, 0, 2, room.SoldOut, 0}, // open turns with nothing left to take
		{1, 0, 0, 1, room.Likely, 0},  // next, nobody holding: the unit is theirs
		{1, 1, 0, 1, room.Unlikely, 1},
		{5, 0, 4, 1, room.Likely, 0},
		{5, 0, 5, 1, room.Unlikely, 0},
		{9, 2, 2, 2, room.Likely, 4},   // 9 > 4×2
		{8, 2, 2, 2, room.Possible, 4}, // 8 = 4×2: enough only if someone buys less than 2
		{5, 2, 2, 2, room.Possible, 4}, // 5 > 4
		{4, 2, 2, 2, room.Unlikely, 4}, // 4 = 4: only if one of them does not buy
		{3, 2, 0, 2, room.Possible, 3}, // the open turns may take every unit, or leave one
		{2, 2, 0, 2, room.Unlikely, 2}, // only if an open turn passes unused
		{1, 0, 1, 0, room.Unlikely, 0}, // no limit known: counts as 1
		{2, 0, 1, 0, room.Likely, 0},
		{math.MaxInt64, 0, math.MaxInt64 / 2, 3, room.Possible, 0}, // no overflow
		{10, 0, math.MaxInt64 - 1, 5, room.Unlikely, 0},
	} {
		t.Run(fmt.Sprintf("%d left %d holding %d ahead limit %d", tc.left, tc.holding, tc.ahead, tc.limit), func(t *testing.T) {
			o := room.Odds{UnitsLeft: tc.left, Holding: tc.holding, Ahead: tc.ahead, Limit: tc.limit}
			if got := o.Outlook(); got != tc.want {
				t.Errorf("outlook %q, want %q", got, tc.want)
			}
			if got := o.UnitsHeld(); got != tc.held {
				t.Errorf("units held %d, want %d", got, tc.held)
			}
		})
	}
}

func TestFinal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		left, unpaid int64
		want         bool
	}{{0, 0, true}, {0, 1, false}, {1, 0, false}, {3, 2, false}} {
		if got := room.Final(tc.left, tc.unpaid); got != tc.want {
			t.Errorf("Final(%d left, %d unpaid) = %v, want %v", tc.left, tc.unpaid, got, tc.want)
		}
	}
}

// TestOddsFollowTheRoom runs a room of 4 units, 2 a shopper, 6 shoppers,
// and checks every shopper's odds as turns open, units are bought, a unit
// comes back and a turn passes unused. The figures are those of one script
// call, read from the real Redis.
func TestOddsFollowTheRoom(t *testing.T) {
	t.Parallel()
	const limit = 2
	s := newSale(t, 4, limit, room.Rules{Rate: 1, Window: 10 * time.Second})
	users := names("c", 6)
	for _, u := range users {
		s.join(t, u, t0)
	}
	// Two turns open (4 units serve two shoppers of 2); nobody else is let in.
	s.tick(t, t0.Add(5*time.Second))
	s.checkOdds(t, users, t0.Add(5*time.Second), []string{"-", "-", "possible", "possible", "unlikely", "unlikely"})

	// c0 buys 2: 2 units left, c1's turn still open.
	s.buy(t, users[0], limit)
	s.checkOdds(t, users, t0.Add(6*time.Second), []string{"-", "-", "possible", "unlikely", "unlikely", "unlikely"})

	// c1 buys the last 2: sold out for everyone waiting.
	s.buy(t, users[1], limit)
	s.checkOdds(t, users, t0.Add(7*time.Second), []string{"-", "-", "sold_out", "sold_out", "sold_out", "sold_out"})

	// A cancel returns 1 unit: the next in line gets the turn, the one
	// after sees a chance again, behind that open turn.
	s.setStock(t, 1)
	s.checkOdds(t, users, t0.Add(8*time.Second), []string{"-", "-", "-", "unlikely", "unlikely", "unlikely"})
	if st := s.look(t, users[2], t0.Add(8*time.Second)); !st.IsAdmitted() {
		t.Fatalf("next in line after the unit came back: %+v", st)
	}

	// c2's turn passes unused: the unit goes to c3, and c4 is next.
	at := t0.Add(8*time.Second + 10*time.Second)
	s.checkOdds(t, users, at, []string{"-", "-", "-", "-", "unlikely", "unlikely"})
	if st := s.look(t, users[3], at); !st.IsAdmitted() || st.Holding != 1 {
		t.Fatalf("after c2's turn passed: %+v", st)
	}
}

// checkOdds asserts every shopper's outlook at at; "-" is a shopper with
// no odds (admitted). Each look also re-checks the held units.
func (s *sale) checkOdds(tb testing.TB, users []string, at time.Time, want []string) {
	tb.Helper()
	for i, u := range users {
		st := s.look(tb, u, at)
		o, ok := st.Odds(2)
		got := "-"
		if ok {
			got = string(o.Outlook())
			if o.UnitsLeft != st.StockLeft || o.Holding != st.Holding || o.Ahead != st.Ahead() || o.UnitsHeld() > o.UnitsLeft {
				tb.Fatalf("%s at %v: odds %+v from standing %+v", u, at.Sub(t0), o, st)
			}
		}
		if got != want[i] {
			tb.Fatalf("%s at %v: outlook %s, want %s (standing %+v)", u, at.Sub(t0), got, want[i], st)
		}
	}
}

// buy does what a purchase does to the room: takes n units and ends the
// buyer's turn (lua/reserve.lua).
func (s *sale) buy(tb testing.TB, user string, n int64) {
	tb.Helper()
	ctx := context.Background()
	if err := s.rdb.DecrBy(ctx, s.keys.Stock(), n).Err(); err != nil {
		tb.Fatalf("buy: %v", err)
	}
	if err := s.rdb.ZRem(ctx, s.keys.RoomHolding(), user).Err(); err != nil {
		tb.Fatalf("buy: %v", err)
	}
}

// TestNoOddsOutsideTheQueue: a shopper not joined, not placed yet, admitted
// or in an ended sale has no odds.
func TestNoOddsOutsideTheQueue(t *testing.T) {
	t.Parallel()
	s := newSale(t, 3, 1, room.Rules{Rate: 1, Window: time.Minute})
	s.join(t, "early", t0.Add(-time.Second))
	for _, tc := range []struct {
		user string
		at   time.Time
	}{
		{"early", t0.Add(-time.Millisecond)}, // before the draw
		{"nobody", t0},
		{"early", t0},                    // admitted at the opening
		{"early", t0.Add(2 * time.Hour)}, // ended
	} {
		if _, ok := s.look(t, tc.user, tc.at).Odds(1); ok {
			t.Errorf("%s at %v has odds", tc.user, tc.at.Sub(t0))
		}
	}
}
