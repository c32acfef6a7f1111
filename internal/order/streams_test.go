package order

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/stock"
	"github.com/seckill/seckill/internal/testenv"
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

// TestRetiredStreamLeavesTheSet: once a sale is retired (stock.Purge), the
// persister's next sweep no longer lists its stream, and a read or reclaim
// of the stream in between, before the sweep, is no failure to report.
func TestRetiredStreamLeavesTheSet(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	keys := keyspace.New(prefix)
	st := stock.NewStore(rdb, keys)
	ctx := context.Background()
	load := func(context.Context, []keyspace.Entry) (stock.State, error) {
		return stock.State{Variants: map[int64]int64{1: 1}}, nil
	}
	for _, id := range []int64{1, 2} {
		if err := st.Warm(ctx, id, load); err != nil {
			t.Fatal(err)
		}
	}
	p := NewPersister(rdb, keys, nil, nil, nil, nil, PersisterConfig{Consumer: "c", Batch: 10, ClaimIdle: time.Millisecond},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	set := newStreamSet(time.Minute)
	if err := set.refresh(ctx, p.registered); err != nil {
		t.Fatal(err)
	}
	both := []string{keys.Item(1).Stream(), keys.Item(2).Stream()}
	if got := slices.Sorted(slices.Values(set.all)); !slices.Equal(got, both) {
		t.Fatalf("streams before the retire: %v, want %v", got, both)
	}
	if _, err := st.Purge(ctx, 1); err != nil {
		t.Fatal(err)
	}
	// Until the next sweep the set still names it: reading it is quiet.
	if _, _, err := p.read(ctx, set.all); err != nil {
		t.Fatalf("read with a retired stream in the set: %v", err)
	}
	_, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: keyspace.Group, Consumer: "c",
		Streams: []string{keys.Item(1).Stream(), ">"}, Block: -1}).Result()
	if !redisconn.NoGroup(err) {
		t.Fatalf("reading a retired stream: %v, want NOGROUP, which redisconn.NoGroup recognises", err)
	}
	set.lastSweep = set.lastSweep.Add(-set.sweepEvery) // the sweep is due
	if err := set.refresh(ctx, p.registered); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(set.all, both[1:]) {
		t.Fatalf("streams after the retire and a sweep: %v, want only %v", set.all, both[1:])
	}
}
