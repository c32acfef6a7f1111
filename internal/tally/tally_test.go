package tally_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/seckill/seckill/internal/tally"
	"github.com/seckill/seckill/internal/testenv"
)

// TestTwoServersFlushToOneCount: summed kinds add up across servers and
// flushes; levels keep the highest any server saw; a flush with nothing new
// writes nothing.
func TestTwoServersFlushToOneCount(t *testing.T) {
	t.Parallel()
	db := testenv.MySQL(t)
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	a, b := tally.New(db.Gorm, log), tally.New(db.Gorm, log)

	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				a.Add(7, tally.RateLimited)
				b.Add(7, tally.Shed)
			}
		}()
	}
	wg.Wait()
	a.Level(7, tally.RoomJoins, 40)
	b.Level(7, tally.RoomJoins, 55)
	b.Level(7, tally.RoomJoins, 50) // lower than seen: ignored
	a.Add(9, tally.Shed)
	for _, s := range []*tally.Set{a, b, a, b} { // the second round has nothing new
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	a.Add(7, tally.RateLimited)
	a.Level(7, tally.RoomJoins, 30) // a server that saw less never lowers the count
	if err := a.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := tally.Read(ctx, db.Gorm, 7)
	if err != nil {
		t.Fatal(err)
	}
	if got.Of(tally.RateLimited) != 8001 || got.Of(tally.Shed) != 8000 || got.Of(tally.RoomJoins) != 55 || got.Of(tally.RoomAdmits) != 0 {
		t.Fatalf("sale 7 counts %v", got)
	}
	if other, _ := tally.Read(ctx, db.Gorm, 9); other.Of(tally.Shed) != 1 || len(other) != 1 {
		t.Fatalf("sale 9 counts %v", other)
	}
}

// TestCountingDoesNotAllocate: the purchase path's cost is an atomic add
// once the sale is known. Not parallel: AllocsPerRun counts the process.
func TestCountingDoesNotAllocate(t *testing.T) {
	s := tally.New(nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	s.Add(7, tally.Shed)
	if n := testing.AllocsPerRun(1000, func() { s.Add(7, tally.Shed); s.Level(7, tally.RoomAdmits, 3) }); n != 0 {
		t.Fatalf("counting allocates %v times", n)
	}
}

// TestCountsSurviveAFailedFlush: a flush MySQL refuses keeps the counts
// for the next one.
func TestCountsSurviveAFailedFlush(t *testing.T) {
	t.Parallel()
	db := testenv.MySQL(t)
	ctx := context.Background()
	s := tally.New(db.Gorm, slog.New(slog.NewTextHandler(io.Discard, nil)))
	s.Add(3, tally.Shed)
	s.Level(3, tally.RoomAdmits, 12)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.Flush(cancelled); err == nil {
		t.Fatal("a flush with a cancelled context succeeded")
	}
	s.Add(3, tally.Shed)
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := tally.Read(ctx, db.Gorm, 3)
	if err != nil || got.Of(tally.Shed) != 2 || got.Of(tally.RoomAdmits) != 12 {
		t.Fatalf("counts %v, %v", got, err)
	}
}
