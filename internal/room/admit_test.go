package room_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/room"
)

// step is one moment of a test's clock and how many the room should have
// admitted by then.
type step struct {
	at   time.Duration // after the opening
	want int64
}

// TestAdmissionRate: at 10/s the room admits one at the opening and one per
// 100ms after, in queue order, never more than the queue, and asking again at
// the same instant admits nobody more.
func TestAdmissionRate(t *testing.T) {
	t.Parallel()
	s := newSale(t, 1000, 1, room.Rules{Rate: 10, Window: time.Hour})
	users := s.joinEarly(t, "u", 30)
	for _, st := range []struct {
		at, next time.Duration // after the opening
		want     int64
	}{
		{0, 100 * time.Millisecond, 1},
		{time.Second, 1100 * time.Millisecond, 11},
		{2500 * time.Millisecond, 2600 * time.Millisecond, 26},
		{2500 * time.Millisecond, 2600 * time.Millisecond, 26},
		{10 * time.Second, 10100 * time.Millisecond, 30}, // 75 credits due, 4 shoppers left
		{time.Minute, time.Minute, 30},                   // nobody waiting: due at once
	} {
		at := t0.Add(st.at)
		for range 5 {
			got := s.tick(t, at)
			if got.Admitted != st.want || !got.Opened || got.Queued() != 30 || !got.NextAt.Equal(t0.Add(st.next)) {
				t.Fatalf("tick at %v: %d admitted of %d queued, next at %v; want %d admitted, next at %v",
					st.at, got.Admitted, got.Queued(), got.NextAt.Sub(t0), st.want, st.next)
			}
		}
		s.checkHead(t, users, at, st.want)
	}
}

// TestNoBanking: a room left empty for 10s does not let the next shoppers
// in all at once: one at once, then one per interval.
func TestNoBanking(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		tickEvery time.Duration // while the room is empty; 0 for never
	}{
		{"never ticked", 0},
		{"ticked while empty", time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newSale(t, 100, 1, room.Rules{Rate: 10, Window: time.Hour})
			for at := time.Duration(0); tc.tickEvery > 0 && at < 10*time.Second; at += tc.tickEvery {
				if got := s.tick(t, t0.Add(at)); got.Admitted != 0 {
					t.Fatalf("empty room at %v: %d admitted", at, got.Admitted)
				}
			}
			late := names("late", 5)
			arrive := t0.Add(10 * time.Second)
			for _, u := range late {
				s.join(t, u, arrive)
			}
			for _, st := range []step{
				{0, 1}, {100 * time.Millisecond, 2}, {150 * time.Millisecond, 2},
				{200 * time.Millisecond, 3}, {400 * time.Millisecond, 5},
			} {
				if got := s.tick(t, arrive.Add(st.at)); got.Admitted != st.want {
					t.Fatalf("%v after 5 joined an idle room: %d admitted, want %d", st.at, got.Admitted, st.want)
				}
				s.checkHead(t, late, arrive.Add(st.at), st.want)
			}
		})
	}
}

// TestCapacity: the room never has more shoppers holding a chance to buy
// than the stock left serves at the per-shopper limit; when their window
// passes, their places go to the next in the queue.
func TestCapacity(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		limit int
		cap   int64 // ceil(stock / limit)
	}{
		{"limit 1", 1, 3},
		{"limit 2", 2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newSale(t, 3, tc.limit, room.Rules{Rate: 100, Window: 30 * time.Second})
			users := s.joinEarly(t, "u", 10)
			for _, st := range []step{
				{time.Second, tc.cap},      // 101 credits due, room for cap
				{30 * time.Second, tc.cap}, // 1s short of their window
				{31 * time.Second, 2 * tc.cap},
			} {
				got := s.tick(t, t0.Add(st.at))
				if got.Admitted != st.want || got.Holding != tc.cap || got.StockLeft != 3 {
					t.Fatalf("at %v: %d admitted, %d holding; want %d admitted, %d holding",
						st.at, got.Admitted, got.Holding, st.want, tc.cap)
				}
				s.checkHead(t, users, t0.Add(st.at), st.want)
			}
		})
	}
}

// TestSoldOut: with no stock left nobody is admitted however long the room
// runs, everyone sees the sale sold out, and nobody new joins.
func TestSoldOut(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		stock    int64 // at the opening; 0 after the first tick
		admitted int64
	}{
		{"sold out at the opening", 0, 0},
		{"sells out after two admissions", 2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newSale(t, tc.stock, 1, room.Rules{Rate: 100, Window: time.Second})
			early := s.joinEarly(t, "u", 5)
			s.tick(t, t0.Add(time.Second))
			s.setStock(t, 0)
			for _, at := range []time.Duration{2 * time.Second, time.Minute, time.Hour - time.Millisecond} {
				got := s.look(t, early[4], t0.Add(at))
				if got.Admitted != tc.admitted || !got.SoldOut() || got.Holding != 0 || !got.Joined || got.Position < 0 {
					t.Fatalf("at %v: %+v; want %d admitted, sold out, nobody holding, shopper still placed",
						at, got, tc.admitted)
				}
			}
			got := s.join(t, "latecomer", t0.Add(2*time.Minute))
			if got.Joined || got.Late != 0 || got.Position != -1 || got.EstimatedWait(100) != -1 {
				t.Fatalf("join after the sell-out: %+v; want refused", got)
			}
		})
	}
}

// TestEnded: after the sale ends nobody joins and nobody is admitted.
func TestEnded(t *testing.T) {
	t.Parallel()
	s := newSale(t, 10, 1, room.Rules{Rate: 100, Window: time.Minute})
	early := s.joinEarly(t, "u", 3)
	end := t0.Add(time.Hour)
	got := s.join(t, "latecomer", end)
	if got.Joined || !got.Ended || !got.Opened || got.Late != 0 {
		t.Fatalf("join at the end: %+v; want refused, ended", got)
	}
	if got := s.tick(t, end.Add(time.Hour)); got.Admitted != 0 || got.Holding != 0 || !got.Ended {
		t.Fatalf("tick after the end: %+v; want nobody admitted", got)
	}
	got = s.look(t, early[0], end)
	if !got.Joined || got.Position < 0 || got.Position > 2 || got.IsAdmitted() {
		t.Fatalf("early joiner after the end: %+v; want placed, not admitted", got)
	}
}

// TestConcurrentAdmission: 32 goroutines tick and look at once while the
// clock runs; every script call is atomic, so nobody is admitted twice, the
// admitted are exactly the head of the queue, and the rate holds.
func TestConcurrentAdmission(t *testing.T) {
	t.Parallel()
	const shoppers, workers, rounds = 1000, 32, 40
	const step = 3 * time.Millisecond // 32×40×3ms ≈ 3.8s: about 770 due at 200/s
	rules := room.Rules{Rate: 200, Window: time.Hour}
	s := newSale(t, 1_000_000, 1, rules)
	users := s.joinEarly(t, "u", shoppers)
	clk := &clock{t: t0}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { s.work(t, clk, users, w, rounds, step) })
	}
	wg.Wait()

	end := clk.now()
	n := s.tick(t, end).Admitted
	ctx := context.Background()
	hlen, err1 := s.rdb.HLen(ctx, s.keys.RoomAdmitted()).Result()
	state, err2 := s.rdb.HGet(ctx, s.keys.RoomState(), "n").Int64()
	if err1 != nil || err2 != nil || hlen != n || state != n {
		t.Fatalf("%d admitted shoppers recorded, state n %d, standing %d (%v, %v); want all equal", hlen, state, n, err1, err2)
	}
	if most := int64(end.Sub(t0)/(5*time.Millisecond)) + 1; n < 1 || n > most {
		t.Fatalf("%d admitted in %v at 200/s, want 1..%d", n, end.Sub(t0), most)
	}
	s.checkHead(t, users, end, n)
}

// work is one goroutine: it moves the clock on and ticks or looks, and
// checks that what it sees never goes backwards.
func (s *sale) work(t *testing.T, clk *clock, users []string, w, rounds int, step time.Duration) {
	ctx := context.Background()
	var seen int64
	for i := range rounds {
		now := clk.advance(step)
		var st room.Standing
		var err error
		if i%2 == 0 {
			st, err = s.store.Tick(ctx, itemID, now, s.rules)
		} else {
			st, err = s.store.Look(ctx, itemID, users[(w*rounds+i)%len(users)], now, s.rules)
		}
		if err != nil {
			t.Errorf("worker %d round %d: %v", w, i, err)
			return
		}
		if st.Admitted < seen {
			t.Errorf("worker %d round %d: %d admitted after seeing %d", w, i, st.Admitted, seen)
		}
		seen = st.Admitted
	}
}

// TestLaggingClockJoinsLate: once any server has seen the room open, a join
// from a server whose clock still reads before the opening queues at the
// back. Slipping into the pre-queue would shift the ranks under the shoppers
// already admitted, admitting one of them twice and skipping another.
func TestLaggingClockJoinsLate(t *testing.T) {
	t.Parallel()
	s := newSale(t, 100, 1, room.Rules{Rate: 10, Window: time.Hour})
	early := s.joinEarly(t, "u", 6)
	if got := s.tick(t, t0.Add(150*time.Millisecond)); got.Admitted != 2 {
		t.Fatalf("150ms after the opening: %d admitted, want 2", got.Admitted)
	}
	lag := s.join(t, "lagging", t0.Add(-time.Second))
	if !lag.Opened || lag.Position != 6 {
		t.Fatalf("join at a clock 1s behind after the opening: %+v, want opened, position 6 (behind the pre-queue)", lag)
	}
	at := t0.Add(time.Second)
	s.tick(t, at)
	s.checkHead(t, append(early, "lagging"), at, 7)
	admitted, err := s.rdb.HLen(context.Background(), s.keys.RoomAdmitted()).Result()
	if err != nil || admitted != 7 {
		t.Fatalf("admitted hash holds %d (%v), want 7: one entry per shopper admitted", admitted, err)
	}
}
