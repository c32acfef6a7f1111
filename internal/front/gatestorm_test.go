package front_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/front"
)

// market stands in for the server and Redis around a gate, on a clock the
// test holds: shoppers come inflight at a time, all of a group ask the gate
// before any answer comes back, and each admitted one is answered as the
// reserve script would (a unit to a new buyer while any is left, else sold
// out) and the answer told to the gate as the server tells it.
type market struct {
	g        *front.Gate
	now      time.Time
	left     int64
	bought   map[string]bool
	step     int64 // units left when the clock steps a window; 0: never
	seq      int   // shoppers so far, to name new ones
	trips    int   // requests that reached Redis
	busy     int   // 503s
	busyLeft int   // 503s while units were left
	soldOut  int   // sold-out answers given by the gate
}

func newMarket(multiple, floor int, units int64) *market {
	m := &market{now: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), left: units, bought: map[string]bool{}}
	m.g = front.NewGate(multiple, floor, time.Second, func() time.Time { return m.now })
	m.g.Observe(1, 0, units) // the server has seen the sale once
	return m
}

// storm sends n new shoppers, inflight at a time, each trying up to tries
// times at once while told 503.
func (m *market) storm(n, inflight, tries int) {
	for first := 0; first < n; first += inflight {
		group := make([]string, 0, inflight)
		for range min(n, first+inflight) - first {
			m.seq++
			group = append(group, "s"+strconv.Itoa(m.seq))
		}
		for range tries {
			if group = m.try(group); len(group) == 0 {
				break
			}
		}
	}
}

// try sends one request from each shopper and returns those told 503.
func (m *market) try(shoppers []string) (busy []string) {
	var admitted []string
	for _, s := range shoppers {
		switch ok, soldOut := m.g.Admit(1, 0, s); {
		case ok:
			admitted = append(admitted, s)
		case soldOut:
			m.soldOut++
		default:
			m.busy++
			if m.left > 0 {
				m.busyLeft++
			}
			busy = append(busy, s)
		}
	}
	for _, s := range admitted {
		m.answer(s)
	}
	return busy
}

func (m *market) answer(s string) {
	m.trips++
	switch {
	case m.bought[s]: // already_purchased: the server tells the gate nothing
	case m.left > 0:
		m.left--
		m.bought[s] = true
		m.g.Bought(1, 0, s, m.left)
		if m.step > 0 && m.left == m.step {
			m.now = m.now.Add(time.Second)
		}
	default:
		m.g.Observe(1, 0, 0)
	}
}

// TestStormSellsEveryUnit is issue 14 against the gate alone: 1,500
// shoppers, 300 units, eight in flight, three tries each. Buyers do not
// count against the cap, so no one is told 503 while units are left,
// whether or not a window starts mid-storm and with or without a floor.
func TestStormSellsEveryUnit(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		floor int
		step  int64
	}{
		{"one window, no floor", 0, 0},
		{"a window from 200 left, no floor", 0, 200},
		{"a window from 27 left, no floor", 0, 27},
		{"a window from 27 left, default floor", 2000, 27},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := newMarket(10, tt.floor, 300)
			m.step = tt.step
			m.storm(1500, 8, 3)
			if m.left != 0 || m.busyLeft != 0 {
				t.Fatalf("%d units unsold, %d answers 503 while units were left (%d 503s in all); want 0 and 0",
					m.left, m.busyLeft, m.busy)
			}
		})
	}
}

// TestFloorKeepsTheLastUnitReachable: in a new window, shoppers who bought
// before come back (their answer is already_purchased, not a unit), and
// with one unit left multiple × left is 10. Without a floor they fill it
// and the shopper who would buy the last unit is told 503; the floor lets
// them through, as the requests are nothing to Redis.
func TestFloorKeepsTheLastUnitReachable(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		floor   int
		wantBuy bool
	}{{0, false}, {2000, true}} {
		m := newMarket(10, tt.floor, 51)
		m.storm(50, 50, 1) // 50 buy; one unit left
		m.now = m.now.Add(time.Second)
		again := make([]string, 0, 50)
		for s := range m.bought {
			again = append(again, s)
		}
		m.try(again)
		if m.try([]string{"last"}); (m.left == 0) != tt.wantBuy {
			t.Fatalf("floor %d: last unit bought %v, want %v (%d 503s)", tt.floor, m.left == 0, tt.wantBuy, m.busy)
		}
	}
}

// TestBigStormOnFewUnits: 100,000 shoppers for 10 units at the defaults
// (multiple 10, floor 2000). Whether they all arrive before any answer or
// 256 at a time, at most the floor and the buyers reach Redis and the rest
// are answered by the gate; once the units are seen gone, the answer is
// sold out, and in the next window one probe reaches Redis before it is
// again.
func TestBigStormOnFewUnits(t *testing.T) {
	t.Parallel()
	for _, inflight := range []int{100000, 256} {
		m := newMarket(10, 2000, 10)
		m.storm(100000, inflight, 1)
		if m.left != 0 || m.trips > 2000+10 {
			t.Fatalf("%d in flight: %d units unsold, %d of 100,000 reached Redis; want 0 and at most 2,010", inflight, m.left, m.trips)
		}
		trips, soldOut := m.trips, m.soldOut
		m.storm(1000, 1, 1)
		if m.trips != trips || m.soldOut != soldOut+1000 {
			t.Fatalf("%d in flight, after the sell-out: %d of 1,000 reached Redis, %d told sold out; want 0 and all",
				inflight, m.trips-trips, m.soldOut-soldOut)
		}
		m.now = m.now.Add(time.Second)
		m.storm(1000, 1, 1)
		if m.trips != trips+1 || m.soldOut != soldOut+1999 {
			t.Fatalf("%d in flight, next window: %d reached Redis (want the 1 probe), %d of the rest told sold out (want 999)",
				inflight, m.trips-trips, m.soldOut-soldOut-1000)
		}
	}
}

// TestBoughtCountsOnce: a buyer frees their room once, and only in the
// window that admitted them; an answer arriving after the window turned
// leaves the new window's count alone.
func TestBoughtCountsOnce(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	g := front.NewGate(1, 0, time.Second, func() time.Time { return now })
	g.Observe(1, 0, 3) // room for 3 waiting shoppers
	g.Admit(1, 0, "late")
	now = now.Add(time.Second)
	for _, s := range []string{"a", "b", "c"} {
		if ok, _ := g.Admit(1, 0, s); !ok {
			t.Fatalf("%s turned away with room for 3", s)
		}
	}
	g.Bought(1, 0, "late", 3) // admitted in the last window
	g.Bought(1, 0, "a", 3)
	g.Bought(1, 0, "a", 3) // a second unit (a limit above 1) frees no more
	if ok, _ := g.Admit(1, 0, "d"); !ok {
		t.Fatal("a bought: d must take a's room")
	}
	if ok, _ := g.Admit(1, 0, "e"); ok {
		t.Fatal("3 waiting with 3 left: e must be turned away")
	}
}
