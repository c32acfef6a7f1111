package room_test

import (
	"testing"
	"time"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/room"
	"github.com/seckill/seckill/internal/testenv"
)

// TestRoomOnCluster runs a room on the test Redis Cluster: every key the
// script touches shares the sale's slot, so no call fails with CROSSSLOT.
// Joins before the opening, admission at the rate up to what the stock can
// serve, late joiners behind, and a sell-out all behave as on one Redis.
func TestRoomOnCluster(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.RedisOn(t, testenv.Cluster(t))
	s := openSale(t, rdb, keyspace.New(prefix), 5, 1, room.Rules{Rate: 10, Window: 30 * time.Second})
	users := s.joinEarly(t, "c", 20)
	s.checkHead(t, users, t0, 1)
	s.checkHead(t, users, t0.Add(300*time.Millisecond), 4)
	s.checkHead(t, users, t0.Add(time.Second), 5) // the stock caps it
	late := s.join(t, "latecomer", t0.Add(time.Second))
	if !late.Joined || late.Position != 20 {
		t.Fatalf("late join: %+v, want place 20", late)
	}
	s.setStock(t, 0)
	if st := s.tick(t, t0.Add(time.Minute)); !st.SoldOut() || st.Admitted != 5 {
		t.Fatalf("after the sell-out: %+v", st)
	}
}
