package front_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/front"
)

type rig struct {
	g   *front.Gate
	now time.Time
	seq int
}

// burst sends n requests from n new shoppers and counts the answers.
func (r *rig) burst(n int) (ok, soldOut int) {
	for range n {
		r.seq++
		a, s := r.g.Admit(1, 0, "s"+strconv.Itoa(r.seq))
		if a {
			ok++
		} else if s {
			soldOut++
		}
	}
	return ok, soldOut
}

func TestGate(t *testing.T) {
	t.Parallel()
	r := &rig{now: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	r.g = front.NewGate(3, 0, time.Second, func() time.Time { return r.now })
	if ok, _ := r.burst(50); ok != 50 {
		t.Fatalf("before any stock is known: %d of 50 admitted, want all", ok)
	}
	r.g.Observe(1, 0, 2)
	r.now = r.now.Add(time.Second)
	if ok, _ := r.burst(50); ok != 6 {
		t.Fatalf("2 left, multiple 3: %d admitted in a window, want 6", ok)
	}
	r.g.Observe(1, 0, 0)
	if ok, sold := r.burst(10); ok != 0 || sold != 10 {
		t.Fatalf("sold out this window: %d admitted, %d sold out; want 0 and 10", ok, sold)
	}
	r.now = r.now.Add(time.Second)
	if ok, sold := r.burst(50); ok != 1 || sold != 0 {
		t.Fatalf("next window: %d admitted (want the 1 probe), %d told sold out (want 0: the zero is stale)", ok, sold)
	}
	r.g.Observe(1, 0, 1) // the probe saw a unit a cancel put back
	r.now = r.now.Add(time.Second)
	if ok, _ := r.burst(10); ok != 3 {
		t.Fatalf("after stock came back: %d admitted, want 3", ok)
	}
}

// TestFewAccountsCannotStarveASale: a shopper already let through in a
// window is let through again without taking more room, so twenty accounts
// sending many requests leave room for everyone else.
func TestFewAccountsCannotStarveASale(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	g := front.NewGate(10, 0, time.Second, func() time.Time { return now })
	g.Observe(1, 0, 4) // room for 40 shoppers a second
	for range 5 {
		for b := range 20 {
			g.Admit(1, 0, "bot"+strconv.Itoa(b))
		}
	}
	honest := 0
	for h := range 10 {
		if ok, _ := g.Admit(1, 0, "person"+strconv.Itoa(h)); ok {
			honest++
		}
	}
	if honest != 10 {
		t.Fatalf("%d of 10 people admitted after 20 bots sent 100 requests, want all 10", honest)
	}
}

func TestGateMemoryAndOff(t *testing.T) {
	t.Parallel()
	g := front.NewGate(3, 0, time.Second, time.Now)
	g.Observe(1, 0, 5)
	for id := range int64(10000) { // made-up sale ids must not grow the gate
		g.Admit(1000+id, 0, "x")
	}
	if g.Len() != 1 {
		t.Fatalf("the gate tracks %d sales after requests for made-up ids, want 1", g.Len())
	}
	if ok, _ := front.NewGate(0, 0, time.Second, time.Now).Admit(1, 0, "x"); !ok {
		t.Fatal("a gate that is off refused")
	}
}

// TestGatePerVariant: the last units of one size of a drop shed its
// stampede without holding back the shoppers of another size, and a return
// of stock to the sale lifts every size's cap.
func TestGatePerVariant(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	g := front.NewGate(2, 0, time.Second, func() time.Time { return now })
	g.Observe(1, 11, 0) // size 11 is gone
	g.Observe(1, 12, 50)
	if ok, soldOut := g.Admit(1, 11, "probe"); !ok || soldOut {
		t.Fatal("the first shopper of a window must reach Redis")
	}
	if ok, soldOut := g.Admit(1, 11, "ann"); ok || !soldOut {
		t.Fatalf("size 11 sold out this window: admitted %v, sold out %v", ok, soldOut)
	}
	for i := range 50 {
		if ok, _ := g.Admit(1, 12, "m"+strconv.Itoa(i)); !ok {
			t.Fatalf("size 12 has 50 left: shopper %d turned away", i)
		}
	}
	g.Returned(1, 3)
	if ok, _ := g.Admit(1, 11, "bob"); !ok {
		t.Fatal("after stock came back to the sale, size 11 must reach Redis again")
	}
}

// TestStaleZeroWithinTheFloor: a zero from an older window may be stale,
// so a new window asks Redis, for as many shoppers as the floor allows
// until an answer comes (without a floor, the one probe); the answer's
// zero is then told as sold out to the rest of the window.
func TestStaleZeroWithinTheFloor(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ floor, want int }{{0, 1}, {5, 5}} {
		r := &rig{now: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
		r.g = front.NewGate(10, tt.floor, time.Second, func() time.Time { return r.now })
		r.g.Observe(1, 0, 0)
		r.now = r.now.Add(time.Second)
		if ok, sold := r.burst(20); ok != tt.want || sold != 0 {
			t.Fatalf("floor %d, a stale zero: %d admitted, %d told sold out; want %d and 0", tt.floor, ok, sold, tt.want)
		}
		r.g.Observe(1, 0, 0)
		if ok, sold := r.burst(20); ok != 0 || sold != 20 {
			t.Fatalf("floor %d, zero seen this window: %d admitted, %d told sold out; want 0 and 20", tt.floor, ok, sold)
		}
	}
}
