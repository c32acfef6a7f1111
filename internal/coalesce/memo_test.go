package coalesce

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A hundred callers at once cost one run and share its result, error
// included; once ttl has passed the next caller runs it again.
func TestMemoRunsOncePerTTL(t *testing.T) {
	t.Parallel()
	var runs atomic.Int64
	errSlow := errors.New("slow store")
	m := NewMemo(time.Hour, func() (int64, error) { return runs.Add(1), errSlow })
	var wg sync.WaitGroup
	for range 100 {
		wg.Go(func() {
			if n, err := m.Get(); n != 1 || !errors.Is(err, errSlow) {
				t.Errorf("Get = %d, %v; want 1, %v", n, err, errSlow)
			}
		})
	}
	wg.Wait()
	if n := runs.Load(); n != 1 {
		t.Fatalf("100 callers ran the look %d times, want 1", n)
	}
	m.ttl = 0 // expired: the next caller looks again
	if n, _ := m.Get(); n != 2 {
		t.Errorf("Get after the ttl = %d, want a second run", n)
	}
}
