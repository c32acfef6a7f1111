package order

import (
	"context"
	"time"
)

// hotFor is how long a stream that had entries is read every round; after
// that it waits for a hint or the next sweep.
const hotFor = 2 * time.Second

// streamSet decides which streams a persister reads each round: every
// registered stream once per sweep interval (that is how a new sale's
// stream, or orders another server queued, are found without a restart),
// and in between only the streams that had entries lately or were hinted.
type streamSet struct {
	sweepEvery time.Duration
	all        []string // every registered stream, as of the last sweep
	lastSweep  time.Time
	sweepNow   bool
	hot        map[string]time.Time // stream -> last time it had entries
}

func newStreamSet(sweepEvery time.Duration) *streamSet {
	return &streamSet{sweepEvery: sweepEvery, hot: map[string]time.Time{}}
}

// refresh re-reads the registry when a sweep is due. When it cannot, the
// streams already known stay the set and the next try waits a sweep
// interval: on a cluster the registry lives on one master, and that master
// being down must not stop the persisting of sales whose streams live on
// the others.
func (s *streamSet) refresh(ctx context.Context, list func(context.Context) ([]string, error)) error {
	if s.listed() && time.Since(s.lastSweep) < s.sweepEvery {
		return nil
	}
	all, err := list(ctx)
	if err != nil {
		if s.listed() {
			s.lastSweep, s.sweepNow = time.Now(), true
		}
		return err
	}
	s.all, s.lastSweep, s.sweepNow = all, time.Now(), true
	return nil
}

// listed reports whether the registry has been read at least once.
func (s *streamSet) listed() bool { return !s.lastSweep.IsZero() }

// targets returns the streams to read this round.
func (s *streamSet) targets(hinted []string, now time.Time) []string {
	if s.sweepNow {
		s.sweepNow = false
		return s.all
	}
	out := hinted
	for stream, last := range s.hot {
		if now.Sub(last) > hotFor {
			delete(s.hot, stream)
			continue
		}
		out = append(out, stream)
	}
	return dedupe(out)
}

// saw marks streams that had entries as hot.
func (s *streamSet) saw(streams []string, now time.Time) {
	for _, stream := range streams {
		s.hot[stream] = now
	}
}

func dedupe(in []string) []string {
	seen := make(map[string]bool, len(in))
	out := in[:0]
	for _, v := range in {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
