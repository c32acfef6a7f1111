package ratelimit

import (
	"sync"
	"testing"
)

func TestSlots(t *testing.T) {
	s := NewSlots(2)
	if !s.Acquire("a") || !s.Acquire("a") {
		t.Fatal("a could not take its 2 slots")
	}
	if s.Acquire("a") {
		t.Fatal("a took a third slot")
	}
	if !s.Acquire("b") {
		t.Fatal("a's slots kept b out")
	}
	s.Release("a")
	if !s.Acquire("a") {
		t.Fatal("a released slot was not free again")
	}
	s.Release("a")
	s.Release("a")
	s.Release("b")
	if len(s.open) != 0 {
		t.Fatalf("released keys kept: %v", s.open)
	}
}

func TestSlotsConcurrent(t *testing.T) {
	s := NewSlots(10)
	var wg sync.WaitGroup
	var mu sync.Mutex
	taken := 0
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if s.Acquire("k") {
				mu.Lock()
				taken++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if taken != 10 {
		t.Fatalf("100 goroutines took %d slots, want 10", taken)
	}
}
