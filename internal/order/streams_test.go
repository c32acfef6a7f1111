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
	down := errors.New("registry master down")
	var listErr error
	registry := []string{"s1", "s2"}
	list := func(context.Context) ([]string, error) { return slices.Clone(registry), listErr }
	ctx := context.Background()

	set := newStreamSet(time.Nanosecond)
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
	time.Sleep(time.Millisecond)
	if err := set.refresh(ctx, list); !errors.Is(err, down) || !set.listed() {
		t.Fatalf("refresh with the registry down later: err %v, listed %v", err, set.listed())
	}
	if got := set.targets(nil, time.Now()); !slices.Equal(got, []string{"s1", "s2"}) {
		t.Fatalf("sweep with the registry down: %v, want the streams already known", got)
	}

	listErr = nil
	time.Sleep(time.Millisecond)
	if err := set.refresh(ctx, list); err != nil {
		t.Fatal(err)
	}
	if got := set.targets([]string{"s3"}, time.Now()); !slices.Equal(got, []string{"s1", "s2", "s3"}) {
		t.Fatalf("sweep once the registry is back: %v, want the new sale's stream too", got)
	}
}
