package saleview

import (
	"time"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/room"
)

// Place is a shopper's place in a sale's waiting room. Position is
// 1-based (1 is next in line) and null until the draw at the opening.
type Place struct {
	ItemID         int64      `json:"item_id"`
	State          string     `json:"state"`
	Joined         bool       `json:"joined"`
	Position       *int64     `json:"position"`
	Ahead          *int64     `json:"ahead"`
	WaitSeconds    *int64     `json:"estimated_wait_seconds"`
	AdmittedAt     *time.Time `json:"admitted_at,omitempty"`
	Token          string     `json:"token,omitempty"`
	TokenExpiresAt *time.Time `json:"token_expires_at,omitempty"`
	Room

	// Chance is the shopper's chance of buying while they wait with a
	// place; null otherwise.
	Chance *Chance `json:"chance"`
}

// Room is the room as everyone sees it: the live stream sends it.
type Room struct {
	Opened     bool      `json:"opened"`
	Admitted   int64     `json:"admitted"`
	Queued     int64     `json:"queued"`
	StockLeft  int64     `json:"stock_left"`
	SoldOut    bool      `json:"sold_out"`
	Ended      bool      `json:"ended"`
	Paused     bool      `json:"paused"`
	Rate       int       `json:"rate"`
	OpensAt    time.Time `json:"opens_at"`
	ServerTime time.Time `json:"server_time"`

	// What a waiting page works its chance out from (see Chance).
	Holding int64 `json:"holding"` // admitted shoppers whose turn to buy is open
	Limit   int   `json:"limit"`   // units one shopper may buy
	// UnitsUnpaid is, once sold out, the units in orders not paid yet:
	// what a cancel or the payment timeout can still return. Null before.
	UnitsUnpaid *int64 `json:"units_unpaid"`
}

// Shopper states in a room.
const (
	RoomNotJoined = "not_joined"
	RoomWaiting   = "waiting"  // in the queue (position null before the draw)
	RoomAdmitted  = "admitted" // may buy now with the token
	RoomExpired   = "expired"  // was admitted; the window to buy has passed
	RoomSoldOut   = "sold_out"
	RoomEnded     = "ended"
	RoomPaused    = "paused" // an admin paused the sale: the shopper keeps their place
)

// Admission hands an admitted shopper the token to buy with: TTL is how
// long a turn lasts, Issue the token valid until exp.
type Admission struct {
	TTL   time.Duration
	Issue func(exp time.Time) string
}

// PlaceOf is the shopper's place in it's room from their standing st;
// unpaid is what can still come back once sold out (nil: not known).
func PlaceOf(it catalog.Item, st room.Standing, now time.Time, unpaid *int64, adm Admission) Place {
	out := Place{ItemID: it.ID, Joined: st.Joined, Room: RoomOf(it, st, now, unpaid),
		Chance: ChanceOf(it, st, unpaid)}
	if st.Joined && st.Position >= 0 {
		pos := st.Position + 1
		out.Position = &pos
	}
	// How long there is to wait means something only while there is.
	if st.Joined && st.Position >= 0 && !st.SoldOut() && !st.Ended {
		ahead, wait := st.Ahead(), int64(st.EstimatedWait(float64(it.RoomRate))/time.Second)
		out.Ahead, out.WaitSeconds = &ahead, &wait
	}
	switch {
	case st.Ended:
		out.State = RoomEnded
	case st.Paused && st.Joined:
		out.State = RoomPaused
	case st.IsAdmitted():
		admitted, exp := st.AdmittedAt.UTC(), st.AdmittedAt.Add(adm.TTL).UTC()
		out.AdmittedAt, out.State = &admitted, RoomExpired
		if now.Before(exp) {
			out.State, out.Token, out.TokenExpiresAt = RoomAdmitted, adm.Issue(exp), &exp
		}
	case st.SoldOut():
		out.State = RoomSoldOut
	case st.Joined:
		out.State = RoomWaiting
	default:
		out.State = RoomNotJoined
	}
	return out
}

// RoomOf is it's room as everyone sees it from any standing in it.
func RoomOf(it catalog.Item, st room.Standing, now time.Time, unpaid *int64) Room {
	return Room{Opened: st.Opened, Admitted: st.Admitted, Queued: st.Queued(), StockLeft: st.StockLeft,
		SoldOut: st.SoldOut(), Ended: st.Ended, Paused: st.Paused, Rate: it.RoomRate, OpensAt: it.StartsAt.UTC(), ServerTime: now.UTC(),
		Holding: st.Holding, Limit: max(it.PerUserLimit, 1), UnitsUnpaid: unpaid}
}

// Chance is a waiting shopper's chance of buying (see room.Odds for the
// rules): the outlook and the figures it is drawn from.
type Chance struct {
	Outlook   room.Outlook `json:"outlook"`
	UnitsLeft int64        `json:"units_left"`
	UnitsHeld int64        `json:"units_held"`
	Holding   int64        `json:"holding"`
	Ahead     int64        `json:"ahead"`
	Limit     int64        `json:"limit"`
	// UnitsUnpaid is known only once the room is sold out: then it is what
	// can still come back to the room.
	UnitsUnpaid *int64 `json:"units_unpaid"`
	Final       bool   `json:"final"`
}

// ChanceOf is the shopper's chance, nil when they have none to show (see
// room.Standing.Odds).
func ChanceOf(it catalog.Item, st room.Standing, unpaid *int64) *Chance {
	o, ok := st.Odds(int64(it.PerUserLimit))
	if !ok {
		return nil
	}
	return &Chance{Outlook: o.Outlook(), UnitsLeft: o.UnitsLeft, UnitsHeld: o.UnitsHeld(), Holding: o.Holding,
		Ahead: o.Ahead, Limit: o.Limit, UnitsUnpaid: unpaid, Final: unpaid != nil && room.Final(o.UnitsLeft, *unpaid)}
}
