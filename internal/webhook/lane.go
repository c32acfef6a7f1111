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
	sending  int            // attempts in flight
	owed     map[int64]bool // seqs started and not yet recorded: still pending in the outbox
	finished []sent         // attempts ended, not yet recorded
	done     chan sent
}

// sent is one finished attempt, waiting to be recorded.
type sent struct {
	dl Delivery
	a  attempt
}

func (d *Dispatcher) deliverTo(ctx context.Context, endpoint string) {
	l := &lane{d: d, endpoint: endpoint, owed: map[int64]bool{}, done: make(chan sent, d.cfg.Concurrency)}
	idle := false
	for ctx.Err() == nil {
		more := l.fill(ctx)
		l.start(ctx)
		// Recorded in rounds of up to a batch, as when the dispatcher
		// waited for its batch (one round per attempt cost MySQL a third
		// of the throughput): once a read's worth of attempts has ended,
		// when all that is due is under way, and when a Poll went by with
		// no attempt ending (slots held by hanging receivers).
		if idle || len(l.finished) >= d.cfg.Batch || (!more && len(l.queue) == 0) {
			l.record(ctx)
		}
		idle = l.wait(ctx, more)
	}
	// The attempts in flight end with ctx; what they got is still news.
	for l.sending > 0 {
		l.finish(<-l.done)
	}
	l.record(ctx)
}

// fill reads due deliveries when none are queued and a slot is free; it
// says whether more may be due than it read. A delivery started and not
// yet recorded is still pending, so it is read again and skipped: its
// subject's later events are not read (they wait for it), so no subject
// is sent twice at once.
func (l *lane) fill(ctx context.Context) bool {
	if len(l.queue) > 0 || l.sending >= l.d.cfg.Concurrency {
		return true
	}
	limit := l.d.cfg.Batch + len(l.owed)
	due, err := l.d.store.due(ctx, l.endpoint, time.Now(), limit)
	if err != nil {
		if ctx.Err() == nil {
			l.d.log.Warn("webhooks: cannot read due events", "endpoint", redact(l.endpoint), "err", err)
		}
		return false
	}
	for _, dl := range due {
		if !l.owed[dl.Seq] {
			l.queue = append(l.queue, dl)
		}
	}
	return len(due) == limit
}

// start sends queued deliveries while slots are free.
func (l *lane) start(ctx context.Context) {
	for len(l.queue) > 0 && l.sending < l.d.cfg.Concurrency {
		dl := l.queue[0]
		l.queue = l.queue[1:]
		l.sending++
		l.owed[dl.Seq] = true
		go func() { l.done <- sent{dl: dl, a: l.d.send(ctx, dl)} }()
	}
}

// wait returns when attempts have ended (taking every one that has), at
// once when more is due and a slot is free, and otherwise after Poll,
// saying so.
func (l *lane) wait(ctx context.Context, more bool) (idle bool) {
	if more && l.sending < l.d.cfg.Concurrency {
		return false
	}
	t := time.NewTimer(l.d.cfg.Poll)
	defer t.Stop()
	select {
	case s := <-l.done:
		l.finish(s)
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
	for {
		select {
		case s := <-l.done:
			l.finish(s)
		default:
			return false
		}
	}
}

// finish frees the slot of an ended attempt; its seq stays owed until
// recorded.
func (l *lane) finish(s sent) {
	l.sending--
	l.finished = append(l.finished, s)
}

// record writes the ended attempts in one round, and only then forgets
// their seqs: forgotten first, a delivery just made would still be pending
// and could be read and sent again. A round that fails to record is
// forgotten all the same, and its rows still pending are sent again (at
// least once, as after a crash): retrying it would count its attempts and
// metrics twice for the part that did commit.
func (l *lane) record(ctx context.Context) {
	if len(l.finished) == 0 {
		return
	}
	due, results := make([]Delivery, len(l.finished)), make([]attempt, len(l.finished))
	for i, s := range l.finished {
		due[i], results[i] = s.dl, s.a
	}
	// Recorded even when ctx ended meanwhile: an attempt made is news.
	if err := l.d.record(context.WithoutCancel(ctx), due, results); err != nil {
		l.d.log.Warn("webhooks: cannot record deliveries", "endpoint", redact(l.endpoint), "err", err)
	}
	for _, dl := range due {
		delete(l.owed, dl.Seq)
	}
	l.finished = l.finished[:0]
}
