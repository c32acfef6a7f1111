package webhook

import (
	"context"
	"time"
)

// lane delivers to one endpoint. Up to Concurrency attempts are in flight,
// and each slot is refilled as soon as its attempt ends: a receiver that
// hangs on one event holds that slot, and that event's subject (whose
// later events are not due while it is pending), but not the events of
// other subjects read with it.
type lane struct {
	d        *Dispatcher
	endpoint string
	queue    []Delivery     // read from the outbox, not started yet
	inflight map[int64]bool // seqs being sent: still pending in the outbox
	done     chan sent
}

// sent is one finished attempt, waiting to be recorded.
type sent struct {
	dl Delivery
	a  attempt
}

func (d *Dispatcher) deliverTo(ctx context.Context, endpoint string) {
	l := &lane{d: d, endpoint: endpoint, inflight: map[int64]bool{}, done: make(chan sent, d.cfg.Concurrency)}
	for ctx.Err() == nil {
		more := l.fill(ctx)
		l.start(ctx)
		l.wait(ctx, more)
	}
	// The attempts in flight end with ctx; what they got is still news.
	for len(l.inflight) > 0 {
		l.record(ctx, <-l.done)
	}
}

// fill reads due deliveries when none are queued and a slot is free; it
// says whether more may be due than it read. A pending delivery in flight
// is due again by the outbox's count, so it is read and skipped: its
// subject's later events are not (they wait for it), so no subject is
// sent twice at once.
func (l *lane) fill(ctx context.Context) bool {
	if len(l.queue) > 0 || len(l.inflight) >= l.d.cfg.Concurrency {
		return true
	}
	limit := l.d.cfg.Batch + len(l.inflight)
	due, err := l.d.store.due(ctx, l.endpoint, time.Now(), limit)
	if err != nil {
		if ctx.Err() == nil {
			l.d.log.Warn("webhooks: cannot read due events", "endpoint", redact(l.endpoint), "err", err)
		}
		return false
	}
	for _, dl := range due {
		if !l.inflight[dl.Seq] {
			l.queue = append(l.queue, dl)
		}
	}
	return len(due) == limit
}

// start sends queued deliveries while slots are free.
func (l *lane) start(ctx context.Context) {
	for len(l.queue) > 0 && len(l.inflight) < l.d.cfg.Concurrency {
		dl := l.queue[0]
		l.queue = l.queue[1:]
		l.inflight[dl.Seq] = true
		go func() { l.done <- sent{dl: dl, a: l.d.send(ctx, dl)} }()
	}
}

// wait returns when an attempt has ended (recording it with any others
// that ended meanwhile), at once when more is due and a slot is free, and
// after Poll when nothing is due.
func (l *lane) wait(ctx context.Context, more bool) {
	free := len(l.inflight) < l.d.cfg.Concurrency
	if free && more {
		return
	}
	var poll <-chan time.Time
	if free {
		t := time.NewTimer(l.d.cfg.Poll)
		defer t.Stop()
		poll = t.C
	}
	select {
	case s := <-l.done:
		l.record(ctx, s)
	case <-poll:
	case <-ctx.Done():
	}
}

// record writes s and the attempts that ended with it, in one round, and
// only then frees their seqs: freed first, a delivery just made would
// still be pending and could be read and sent again.
func (l *lane) record(ctx context.Context, s sent) {
	due, results := []Delivery{s.dl}, []attempt{s.a}
	for more := true; more; {
		select {
		case s := <-l.done:
			due, results = append(due, s.dl), append(results, s.a)
		default:
			more = false
		}
	}
	// Recorded even when ctx ended meanwhile: an attempt made is news.
	if err := l.d.record(context.WithoutCancel(ctx), due, results); err != nil {
		l.d.log.Warn("webhooks: cannot record deliveries", "endpoint", redact(l.endpoint), "err", err)
	}
	for _, dl := range due {
		delete(l.inflight, dl.Seq)
	}
}
