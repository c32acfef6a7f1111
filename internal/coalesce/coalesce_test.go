package coalesce

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/testenv"
)

// doubler answers each request with twice its value, recording batch sizes;
// its first batch waits for release, so that the others queue up behind it.
type doubler struct {
	mu      sync.Mutex
	sizes   []int
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func newDoubler() *doubler {
	return &doubler{entered: make(chan struct{}), release: make(chan struct{})}
}

func (d *doubler) run(_ context.Context, reqs []int, out []int) {
	d.once.Do(func() { close(d.entered); <-d.release })
	d.mu.Lock()
	d.sizes = append(d.sizes, len(reqs))
	d.mu.Unlock()
	for i, r := range reqs {
		out[i] = 2 * r
	}
}

// callAll makes calls 0..n-1 at once; if first is not nil, call 0 goes
// first and the rest only once first is closed.
func callAll(b *Batcher[int, int], n int, first chan struct{}) []int {
	got := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		if i == 1 && first != nil {
			<-first
		}
		wg.Add(1)
		go func() { defer wg.Done(); got[i] = b.Do(context.Background(), i) }()
	}
	wg.Wait()
	return got
}

func waitQueued(t *testing.T, b *Batcher[int, int], n int) {
	t.Helper()
	testenv.WaitFor(t, 5*time.Second, func() bool { return len(b.queue) >= n }, "fewer than %d calls queued", n)
}

// waitRunning waits until Run has started: calls made before it run alone.
func waitRunning(t *testing.T, b *Batcher[int, int]) {
	t.Helper()
	testenv.WaitFor(t, 5*time.Second, b.running.Load, "Run did not start")
}

// startRun runs b's workers until the test ends.
func startRun(t *testing.T, b *Batcher[int, int]) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go b.Run(ctx)
	waitRunning(t, b)
}

// callsBehindAHeldBatch makes n calls on one running worker taking batches
// of at most size, holding the first batch until the other n-1 calls wait
// behind it, and returns the doubler (which saw the batch sizes) and the
// answers in call order.
func callsBehindAHeldBatch(t *testing.T, size, n int) (*doubler, []int) {
	t.Helper()
	d := newDoubler()
	b := New(1, size, d.run)
	startRun(t, b)
	done := make(chan []int)
	go func() { done <- callAll(b, n, d.entered) }()
	waitQueued(t, b, n-1) // one call is in the held batch, the rest wait
	close(d.release)
	return d, <-done
}

func TestCallsQueuedBehindABatchRunAsOne(t *testing.T) {
	t.Parallel()
	d, got := callsBehindAHeldBatch(t, 128, 100)
	for i, v := range got {
		if v != 2*i {
			t.Fatalf("call %d got %d, want %d", i, v, 2*i)
		}
	}
	if len(d.sizes) != 2 || d.sizes[0] != 1 || d.sizes[1] != 99 {
		t.Fatalf("batch sizes %v, want [1 99]", d.sizes)
	}
}

func TestBatchesNeverExceedMax(t *testing.T) {
	t.Parallel()
	d, _ := callsBehindAHeldBatch(t, 10, 11)
	for _, n := range d.sizes {
		if n > 10 {
			t.Fatalf("batch of %d, max is 10 (sizes %v)", n, d.sizes)
		}
	}
}

func TestWithoutRunCallsRunAlone(t *testing.T) {
	t.Parallel()
	d := newDoubler()
	close(d.release)
	b := New(2, 128, d.run)
	if got := callAll(b, 20, nil); got[7] != 14 {
		t.Fatalf("call 7 got %d", got[7])
	}
	for _, n := range d.sizes {
		if n != 1 {
			t.Fatalf("batch of %d before Run; want each call alone", n)
		}
	}
}

// Calls still queued when the workers stop are answered all the same, each
// exactly once.
func TestStopAnswersQueuedCalls(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	seen := map[int]int{}
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	b := New(1, 128, func(_ context.Context, reqs []int, out []int) {
		once.Do(func() { close(entered); <-release })
		mu.Lock()
		defer mu.Unlock()
		for i, r := range reqs {
			seen[r]++
			out[i] = 2 * r
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { b.Run(ctx); close(stopped) }()
	waitRunning(t, b)
	done := make(chan []int)
	go func() { done <- callAll(b, 50, entered) }()
	waitQueued(t, b, 49)
	cancel()
	close(release)
	got := <-done
	<-stopped
	for i, v := range got {
		if v != 2*i || seen[i] != 1 {
			t.Fatalf("call %d got %d and ran %d times", i, v, seen[i])
		}
	}
}
