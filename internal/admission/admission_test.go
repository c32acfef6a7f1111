package admission_test

import (
	"testing"
	"time"

	"github.com/seckill/seckill/internal/admission"
)

func TestGate(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	g := admission.New(3, time.Second, func() time.Time { return now })
	admitted := func(n int) (ok, sold int) {
		for range n {
			a, s := g.Admit(1)
			if a {
				ok++
			} else if s {
				sold++
			}
		}
		return ok, sold
	}
	if ok, _ := admitted(50); ok != 50 {
		t.Fatalf("before any stock is known: %d of 50 admitted, want all", ok)
	}
	g.Observe(1, 2)
	now = now.Add(time.Second)
	if ok, _ := admitted(50); ok != 6 {
		t.Fatalf("2 left, multiple 3: %d admitted in a window, want 6", ok)
	}
	g.Observe(1, 0)
	now = now.Add(time.Second)
	if ok, sold := admitted(50); ok != 1 || sold != 49 {
		t.Fatalf("sold out: %d admitted (want the 1 probe), %d answered sold out (want 49)", ok, sold)
	}
	g.Observe(1, 1) // a cancel put one back; the probe saw it
	now = now.Add(time.Second)
	if ok, _ := admitted(10); ok != 3 {
		t.Fatalf("after stock came back: %d admitted, want 3", ok)
	}
	if ok, _ := admission.New(0, time.Second, time.Now).Admit(1); !ok {
		t.Fatal("a gate that is off refused")
	}
	for id := range int64(10000) { // made-up sale ids must not grow the gate
		g.Admit(1000 + id)
	}
	if g.Len() != 1 {
		t.Fatalf("the gate tracks %d sales after requests for made-up ids, want 1", g.Len())
	}
}
