package saleview

import (
	"testing"
	"time"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/room"
)

// TestPlaceStates: a shopper's state in the room follows their standing,
// and only an admitted shopper still within their window gets a token.
func TestPlaceStates(t *testing.T) {
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	it := catalog.Item{ID: 7, RoomRate: 10, PerUserLimit: 2, StartsAt: now.Add(-time.Minute)}
	adm := Admission{TTL: time.Minute, Issue: func(time.Time) string { return "tok" }}
	open := room.Standing{Opened: true, StockLeft: 5, Position: -1}
	for _, tc := range []struct {
		name  string
		st    func(room.Standing) room.Standing
		state string
		token bool
	}{
		{"not joined", func(s room.Standing) room.Standing { return s }, RoomNotJoined, false},
		{"waiting", func(s room.Standing) room.Standing { s.Joined, s.Position, s.Late = true, 3, 4; return s }, RoomWaiting, false},
		{"admitted", func(s room.Standing) room.Standing { s.Joined, s.AdmittedAt = true, now.Add(-time.Second); return s }, RoomAdmitted, true},
		{"expired", func(s room.Standing) room.Standing { s.Joined, s.AdmittedAt = true, now.Add(-time.Hour); return s }, RoomExpired, false},
		{"paused", func(s room.Standing) room.Standing { s.Joined, s.Paused = true, true; return s }, RoomPaused, false},
		{"sold out", func(s room.Standing) room.Standing { s.StockLeft = 0; return s }, RoomSoldOut, false},
		{"ended", func(s room.Standing) room.Standing { s.Ended = true; return s }, RoomEnded, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := PlaceOf(it, tc.st(open), now, nil, adm)
			if p.State != tc.state || (p.Token != "") != tc.token || p.ItemID != it.ID || p.Limit != 2 {
				t.Fatalf("place %+v: want state %s, token %v", p, tc.state, tc.token)
			}
		})
	}
}
