package testenv

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestEventually(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	if !Eventually(time.Second, func() bool { return n.Add(1) == 3 }) {
		t.Fatalf("a condition true on the third poll did not hold within 1s")
	}
	start := time.Now()
	if Eventually(30*time.Millisecond, func() bool { return false }) {
		t.Fatal("a condition that never holds held")
	}
	if d := time.Since(start); d < 30*time.Millisecond || d > time.Second {
		t.Fatalf("gave up after %v, want about the 30ms timeout", d)
	}
}
