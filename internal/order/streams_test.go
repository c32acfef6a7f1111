package order

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

// TestStreamSetKeepsKnownStreams: a registry that cannot be read (its
// cluster master down) leaves the streams already known in the sweep, so
// sales on the healthy masters keep being persisted; before the first read
// there is nothing to fall back on and the error stands.
func TestStreamSetKeepsKnownStreams(t *testing.T) {
	t.Parallel()
	down := errors.New("registry master down")
	var listErr error
	registry := []string{"s1", "s2"}
	list := func(context.Context) ([]string, error) { return slices.Clone(registry), listErr }
	ctx := context.Background()

	set := newStreamSet(time.Minute)
	// sweepDue moves the last sweep a sweep interval back, as if the
	// interval had passed, so refresh reads the registry again.
	sweepDue := func() { set.lastSweep = set.lastSweep.Add(-set.sweepEvery) }
	listErr = down
	if err := set.refresh(ctx, list); !errors.Is(err, down) || set.listed() {
		t.Fatalf("first refresh with the registry down: err %v, listed %v; want the error, not listed", err, set.listed())
	}
	listErr = nil
	if err := set.refresh(ctx, list); err != nil {
		t.Fatal(err)
	}
	if got := set.targets(nil, time.Now()); !slices.Equal(got, []string{"s1", "s2"}) {
		t.Fatalf("sweep after the first read: %v", got)
	}

	listErr, registry = down, []string{"s1", "s2", "s3"}
	if err := set.refresh(ctx, list); err != nil {
		t.Fatalf("refresh within the sweep interval: %v, want nil: the registry is not read again", err)
	}
	sweepDue()
	if err := set.refresh(ctx, list); !errors.Is(err, down) || !set.listed() {
		t.Fatalf("refresh with the registry down later: err %v, listed %v", err, set.listed())
	}
	if got := set.targets(nil, time.Now()); !slices.Equal(got, []string{"s1", "s2"}) {
		t.Fatalf("sweep with the registry down: %v, want the streams already known", got)
	}

	listErr = nil
	if err := set.refresh(ctx, list); err != nil || len(set.targets(nil, time.Now())) != 0 {
		t.Fatalf("refresh within a sweep interval of the failed read: %v; want nil and no sweep: the next try waits an interval", err)
	}
	sweepDue()
	if err := set.refresh(ctx, list); err != nil {
		t.Fatal(err)
	}
	if got := set.targets([]string{"s3"}, time.Now()); !slices.Equal(got, []string{"s1", "s2", "s3"}) {
		t.Fatalf("sweep once the registry is back: %v, want the new sale's stream too", got)
	}
}
