package purchase

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/seckill/seckill/test/e2e/e2etest"
)

func TestEventStreamRequiresAdmin(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0))
	e2etest.Check(t, s.Call(t, "GET", "/api/v1/admin/events", "", nil), e2etest.Want{Status: 401, Code: "unauthenticated"})
	e2etest.Check(t, s.Call(t, "GET", "/api/v1/admin/events", e2etest.MintToken(t, "admin"), nil), e2etest.Want{Status: 401, Code: "unauthenticated"})
}

// TestDashboardThroughStorm: while 10,000 purchase requests hit one sale, the
// dashboard stream keeps to at most one update a second, shows the final
// numbers within two seconds of the last purchase, and reports what each
// snapshot cost the server.
//
// Serial: it times the dashboard's updates (at most one a second, the
// final numbers within 2s), which parallel load would skew.
func TestDashboardThroughStorm(t *testing.T) {
	const requests, stock = 10000, 1000
	s := e2etest.Start(t, &e2etest.LiveClock{})
	id := s.Sale(t, stock, 1, time.Now().Add(-time.Minute), time.Now().Add(time.Hour))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := e2etest.Watch(t, ctx, s)

	began := time.Now()
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for n := range jobs {
				s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", e2etest.MintToken(t, "st"+strconv.Itoa(n%4000)), nil)
			}
		})
	}
	for n := range requests {
		jobs <- n
	}
	close(jobs)
	wg.Wait()
	stormEnd := time.Now()

	var got []e2etest.Snapshot
	var final time.Duration
	for snap := range events {
		got = append(got, snap)
		if len(snap.Rows) == 1 && snap.Rows[0].Sold == stock && snap.Rows[0].Consistent && final == 0 {
			// Negative when the units sold out (and showed) before the
			// storm's sold-out tail ended.
			final = max(snap.At.Sub(stormEnd), time.Nanosecond)
			cancel()
		}
		if time.Since(stormEnd) > 5*time.Second {
			cancel()
		}
	}
	if final == 0 {
		t.Fatalf("the dashboard never showed %d sold and consistent (%d events)", stock, len(got))
	}
	if final > 2*time.Second {
		t.Fatalf("final numbers reached the dashboard %v after the storm, want within 2s", final)
	}
	var total, worst float64
	for i, snap := range got {
		total += snap.ComputeMS
		worst = max(worst, snap.ComputeMS)
		if i > 0 && snap.At.Sub(got[i-1].At) < 800*time.Millisecond {
			t.Errorf("two updates %v apart: want at most one a second", snap.At.Sub(got[i-1].At))
		}
	}
	span := time.Since(began).Seconds()
	t.Logf("storm of %d requests took %v; %d dashboard updates; snapshot cost avg %.1f ms, worst %.1f ms (%.2f%% of one core over the run); sold-out numbers shown %v after the last request",
		requests, stormEnd.Sub(began).Round(time.Millisecond), len(got), total/float64(len(got)), worst, 100*total/1000/span, final.Round(time.Millisecond))
}
