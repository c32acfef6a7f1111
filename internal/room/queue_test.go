package room_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/room"
)

// slow admits about nobody, so these tests see the queue, not admission.
var slow = room.Rules{Rate: 0.001, Window: time.Minute}

// TestPreQueueShuffle: places are unknown before the opening, a permutation
// after it, unrelated to arrival order, and rejoining changes nothing.
func TestPreQueueShuffle(t *testing.T) {
	t.Parallel()
	const n = 2000
	s := newSale(t, 10, 1, slow)
	users := s.joinEarly(t, "early", n)
	drawn := scores(t, s)
	for _, u := range users {
		st := s.join(t, u, t0.Add(-time.Second))
		if !st.Joined || st.Position != -1 || st.Early != n {
			t.Fatalf("rejoin of %s before the opening: %+v, want joined, position -1, %d early", u, st, n)
		}
	}
	if again := scores(t, s); !slices.Equal(drawn, again) {
		t.Fatal("rejoining before the opening changed the pre-queue's draws")
	}

	pos := make([]int64, n)
	seen := make([]bool, n)
	for i, u := range users {
		pos[i] = s.look(t, u, t0).Position
		if pos[i] < 0 || pos[i] >= n || seen[pos[i]] {
			t.Fatalf("%s at the opening: position %d, want a unique place in [0, %d)", u, pos[i], n)
		}
		seen[pos[i]] = true
	}
	if rho := spearman(pos); math.Abs(rho) >= 0.1 {
		t.Errorf("rank correlation of arrival and place = %.3f, want |ρ| < 0.1 (sd ≈ 0.022 if unrelated)", rho)
	}

	for i, u := range users {
		st := s.join(t, u, t0.Add(time.Second))
		if st.Position != pos[i] || st.Late != 0 {
			t.Fatalf("rejoin of %s after the opening: position %d, %d late; want position %d, 0 late",
				u, st.Position, st.Late, pos[i])
		}
	}
}

// scores returns the pre-queue's members and draws, in queue order.
func scores(tb testing.TB, s *sale) []redis.Z {
	tb.Helper()
	z, err := s.rdb.ZRangeWithScores(context.Background(), s.keys.RoomEarly(), 0, -1).Result()
	if err != nil {
		tb.Fatal(err)
	}
	return z
}

// spearman is the rank correlation of arrival order (the index) and place,
// both permutations of 0..n-1: 1 - 6Σd² / (n(n²-1)).
func spearman(pos []int64) float64 {
	n := float64(len(pos))
	var sum float64
	for i, p := range pos {
		d := float64(int64(i) - p)
		sum += d * d
	}
	return 1 - 6*sum/(n*(n*n-1))
}

// TestLateJoinersQueueInOrder: after the opening, joiners queue behind the
// whole pre-queue, first come first served, at consecutive places.
func TestLateJoinersQueueInOrder(t *testing.T) {
	t.Parallel()
	s := newSale(t, 100, 1, slow)
	early := s.joinEarly(t, "early", 5)
	late := names("late", 10)
	for i, u := range late {
		st := s.join(t, u, t0.Add(time.Duration(i+1)*time.Second))
		if !st.Joined || st.Position != int64(5+i) || st.Late != int64(i+1) || st.Queued() != int64(6+i) {
			t.Fatalf("late join %d (%s): %+v, want position %d", i, u, st, 5+i)
		}
	}
	for i, u := range late {
		if p := s.look(t, u, t0.Add(time.Minute)).Position; p != int64(5+i) {
			t.Errorf("%s a minute in: position %d, want %d", u, p, 5+i)
		}
	}
	st := s.join(t, early[0], t0.Add(time.Minute))
	if st.Position < 0 || st.Position >= 5 || st.Late != 10 {
		t.Errorf("early joiner rejoining after the opening: position %d, %d late; want a place in [0, 5), 10 late",
			st.Position, st.Late)
	}
	if st := s.look(t, "stranger", t0.Add(time.Minute)); st.Joined || st.Position != -1 || st.Ahead() != -1 {
		t.Errorf("look by a shopper not in the room: %+v, want not joined, position -1", st)
	}
}

// TestErrors: a sale Redis does not know, bad rules and a join without a
// user are errors that errors.Is recognises.
func TestErrors(t *testing.T) {
	t.Parallel()
	s := newSale(t, 10, 1, slow)
	ctx := context.Background()
	// Item 2 has stock but no meta, item 3 meta but no stock: half warmed.
	if err := s.rdb.Set(ctx, s.space.Item(2).Stock(), 5, 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := s.rdb.HSet(ctx, s.space.Item(3).Meta(), "starts_ms", t0.UnixMilli(),
		"ends_ms", t0.Add(time.Hour).UnixMilli(), "limit", 1).Err(); err != nil {
		t.Fatal(err)
	}
	st := s.store
	tests := []struct {
		name string
		call func() error
		want error
	}{
		{"join unknown sale", func() error { _, err := st.Join(ctx, 99, "u", t0, slow); return err }, room.ErrNotWarmed},
		{"look unknown sale", func() error { _, err := st.Look(ctx, 99, "u", t0, slow); return err }, room.ErrNotWarmed},
		{"tick unknown sale", func() error { _, err := st.Tick(ctx, 99, t0, slow); return err }, room.ErrNotWarmed},
		{"stock without meta", func() error { _, err := st.Tick(ctx, 2, t0, slow); return err }, room.ErrNotWarmed},
		{"meta without stock", func() error { _, err := st.Join(ctx, 3, "u", t0, slow); return err }, room.ErrNotWarmed},
		{"zero rate", func() error { _, err := st.Tick(ctx, itemID, t0, room.Rules{Window: time.Second}); return err }, room.ErrBadRules},
		{"zero window", func() error { _, err := st.Look(ctx, itemID, "u", t0, room.Rules{Rate: 1}); return err }, room.ErrBadRules},
		{"negative rate", func() error { return room.Rules{Rate: -1, Window: time.Second}.Validate() }, room.ErrBadRules},
		{"NaN rate", func() error { return room.Rules{Rate: math.NaN(), Window: time.Second}.Validate() }, room.ErrBadRules},
		{"infinite rate", func() error { return room.Rules{Rate: math.Inf(1), Window: time.Second}.Validate() }, room.ErrBadRules},
		{"join without user", func() error { _, err := st.Join(ctx, itemID, "", t0, slow); return err }, room.ErrNoUser},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	if n, _ := s.rdb.Exists(ctx, s.space.Item(99).RoomState(), s.space.Item(99).RoomEarly()).Result(); n != 0 {
		t.Errorf("a call on an unknown sale left %d room keys behind", n)
	}
}

func TestErrorNamesOperationAndItem(t *testing.T) {
	t.Parallel()
	s := newSale(t, 10, 1, slow)
	_, err := s.store.Join(context.Background(), 99, "u", t0, slow)
	if want := "join room of item 99: " + room.ErrNotWarmed.Error(); err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
}

func TestStandingMath(t *testing.T) {
	t.Parallel()
	admittedAt := t0.Add(time.Second)
	tests := []struct {
		name    string
		st      room.Standing
		rate    float64
		ahead   int64
		wait    time.Duration
		soldOut bool
	}{
		{"admitted", room.Standing{Opened: true, StockLeft: 5, Admitted: 10, Position: 3, AdmittedAt: admittedAt}, 10, 0, 0, false},
		{"before the opening", room.Standing{Early: 50, Position: -1}, 10, -1, -1, false},
		{"not in the room", room.Standing{Opened: true, StockLeft: 5, Position: -1}, 10, -1, -1, false},
		{"next in line", room.Standing{Opened: true, StockLeft: 5, Admitted: 10, Position: 10}, 10, 0, 0, false},
		{"15 ahead at 10/s", room.Standing{Opened: true, StockLeft: 5, Admitted: 10, Position: 25}, 10, 15, 2 * time.Second, false},
		{"20 ahead at 10/s", room.Standing{Opened: true, StockLeft: 5, Admitted: 10, Position: 30}, 10, 20, 2 * time.Second, false},
		{"1 ahead at 0.5/s", room.Standing{Opened: true, StockLeft: 5, Admitted: 0, Position: 1}, 0.5, 1, 2 * time.Second, false},
		{"rate unknown", room.Standing{Opened: true, StockLeft: 5, Position: 30}, 0, 30, -1, false},
		{"sold out", room.Standing{Opened: true, StockLeft: 0, Admitted: 3, Position: 7}, 10, 4, time.Second, true},
		{"forever", room.Standing{Opened: true, StockLeft: 5, Position: 1 << 50}, 1e-9, 1 << 50, math.MaxInt64, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.st.Ahead(); got != tc.ahead {
				t.Errorf("Ahead() = %d, want %d", got, tc.ahead)
			}
			if got := tc.st.EstimatedWait(tc.rate); got != tc.wait {
				t.Errorf("EstimatedWait(%v) = %v, want %v", tc.rate, got, tc.wait)
			}
			if got := tc.st.SoldOut(); got != tc.soldOut {
				t.Errorf("SoldOut() = %v, want %v", got, tc.soldOut)
			}
			if got := tc.st.IsAdmitted(); got != !tc.st.AdmittedAt.IsZero() {
				t.Errorf("IsAdmitted() = %v", got)
			}
		})
	}
	if q := (room.Standing{Early: 3, Late: 4}).Queued(); q != 7 {
		t.Errorf("Queued() = %d, want 7", q)
	}
}
