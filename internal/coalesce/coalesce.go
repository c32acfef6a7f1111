// Package coalesce merges calls that arrive together from many goroutines
// into batches, so that a thousand concurrent purchases cost a handful of
// Redis round trips instead of a thousand. Nothing waits for a batch to fill:
// a worker takes whatever is queued the moment it is free, so a lone call
// runs at once and batches grow only while earlier ones are in flight. A
// Memo does the same for reads: the callers within its ttl share one run.
package coalesce

import (
	"context"
	"sync"
	"sync/atomic"
)

// Func runs reqs as one batch and writes the answer to reqs[i] into out[i].
type Func[Q, R any] func(ctx context.Context, reqs []Q, out []R)

// Batcher runs calls through Func in batches once Run has started, and one
// at a time (on the caller's goroutine) before Run starts or after it ends.
type Batcher[Q, R any] struct {
	fn      Func[Q, R]
	workers int
	max     int
	queue   chan *call[Q, R]
	running atomic.Bool
	stopped chan struct{}
	calls   sync.Pool
	// Observe, if set, is told the size of every batch a worker runs.
	Observe func(n int)
}

// A call is queued, then either taken by a worker or, if the workers have
// stopped first, reclaimed by its caller; never both.
const (
	queued int32 = iota
	taken
	reclaimed
)

type call[Q, R any] struct {
	req   Q
	res   R
	state atomic.Int32
	done  chan struct{}
}

// New returns a batcher with workers concurrent batches of at most max calls.
func New[Q, R any](workers, max int, fn Func[Q, R]) *Batcher[Q, R] {
	b := &Batcher[Q, R]{fn: fn, workers: workers, max: max,
		queue: make(chan *call[Q, R], workers*max), stopped: make(chan struct{})}
	b.calls.New = func() any { return &call[Q, R]{done: make(chan struct{}, 1)} }
	return b
}

// Do runs req, in a batch with others when the workers are running. It
// waits for the answer even if ctx ends meanwhile: once queued, the call
// may already be running, and its answer is the only record of what it did.
func (b *Batcher[Q, R]) Do(ctx context.Context, req Q) R {
	if !b.running.Load() {
		return b.direct(ctx, req)
	}
	c := b.calls.Get().(*call[Q, R])
	c.req = req
	c.state.Store(queued)
	select {
	case b.queue <- c:
	case <-b.stopped:
		b.calls.Put(c)
		return b.direct(ctx, req)
	}
	select {
	case <-c.done:
	case <-b.stopped:
		if c.state.CompareAndSwap(queued, reclaimed) {
			return b.direct(ctx, req) // still queued: c stays with the queue, not the pool
		}
		<-c.done
	}
	res := c.res
	var zeroQ Q
	var zeroR R
	c.req, c.res = zeroQ, zeroR
	b.calls.Put(c)
	return res
}

func (b *Batcher[Q, R]) direct(ctx context.Context, req Q) R {
	out := make([]R, 1)
	b.fn(ctx, []Q{req}, out)
	return out[0]
}

// Run batches calls until ctx ends. Stop the callers first (for a server:
// shut HTTP down, then cancel ctx); a call still queued when the workers stop
// runs on its caller's goroutine instead.
func (b *Batcher[Q, R]) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	b.running.Store(true)
	for range b.workers {
		wg.Add(1)
		go func() { defer wg.Done(); b.work(ctx) }()
	}
	<-ctx.Done()
	b.running.Store(false)
	wg.Wait()
	close(b.stopped)
	return nil
}

func (b *Batcher[Q, R]) work(ctx context.Context) {
	batch := make([]*call[Q, R], 0, b.max)
	reqs := make([]Q, 0, b.max)
	out := make([]R, b.max)
	// Batches run on a context that outlives Run's: a batch already sent
	// must be answered, not cut off half-way by shutdown.
	runCtx := context.WithoutCancel(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case c := <-b.queue:
			batch = b.take(batch, c)
		}
	fill:
		for len(batch) < b.max {
			select {
			case c := <-b.queue:
				batch = b.take(batch, c)
			default:
				break fill
			}
		}
		if len(batch) == 0 {
			continue
		}
		b.runBatch(runCtx, batch, reqs, out)
		batch = batch[:0]
	}
}

func (b *Batcher[Q, R]) take(batch []*call[Q, R], c *call[Q, R]) []*call[Q, R] {
	if c.state.CompareAndSwap(queued, taken) {
		batch = append(batch, c)
	}
	return batch
}

func (b *Batcher[Q, R]) runBatch(ctx context.Context, batch []*call[Q, R], reqs []Q, out []R) {
	reqs = reqs[:0]
	for _, c := range batch {
		reqs = append(reqs, c.req)
	}
	var zero R
	for i := range batch {
		out[i] = zero
	}
	b.fn(ctx, reqs, out[:len(batch)])
	if b.Observe != nil {
		b.Observe(len(batch))
	}
	for i, c := range batch {
		c.res = out[i]
		c.done <- struct{}{}
	}
}
