package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/room"
	"github.com/seckill/seckill/internal/tally"
	"github.com/seckill/seckill/internal/token"
)

// Room is the waiting room the handlers need (room.Store).
type Room interface {
	Join(ctx context.Context, itemID int64, user string, now time.Time, r room.Rules) (room.Standing, error)
	Look(ctx context.Context, itemID int64, user string, now time.Time, r room.Rules) (room.Standing, error)
}

// RoomEvents hands out a room's standings as they change (room.Watcher).
type RoomEvents interface {
	Subscribe(itemID int64) (<-chan room.Live, func())
}

// Warmer runs a step that needs the sale in Redis, warming it first if
// Redis does not know it (sale.Service).
type Warmer interface {
	Warmed(ctx context.Context, itemID int64, op func(ctx context.Context) error) error
}

// roomAPI is the waiting room as shoppers see it: joining, their place, and
// the room's live stream.
type roomAPI struct {
	saleView
	room       Room
	live       RoomEvents
	warmer     Warmer
	sse        sseStreams
	window     time.Duration // how long an admitted shopper has to buy
	admissions token.Purchase
	counters   *tally.Set // the room's totals for the post-sale report

	unpaid UnpaidUnits // what can still come back to a sold-out room; nil: never known
}

// roomJSON is a shopper's place in a sale's waiting room. Position is
// 1-based (1 is next in line) and null until the draw at the opening.
type roomJSON struct {
	ItemID         int64      `json:"item_id"`
	State          string     `json:"state"`
	Joined         bool       `json:"joined"`
	Position       *int64     `json:"position"`
	Ahead          *int64     `json:"ahead"`
	WaitSeconds    *int64     `json:"estimated_wait_seconds"`
	AdmittedAt     *time.Time `json:"admitted_at,omitempty"`
	Token          string     `json:"token,omitempty"`
	TokenExpiresAt *time.Time `json:"token_expires_at,omitempty"`
	roomStateJSON

	// Chance is the shopper's chance of buying while they wait with a
	// place; null otherwise.
	Chance *chanceJSON `json:"chance"`
}

// roomStateJSON is the room as everyone sees it: the live stream sends it.
type roomStateJSON struct {
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

	// What a waiting page works its chance out from (see chanceJSON).
	Holding int64 `json:"holding"` // admitted shoppers whose turn to buy is open
	Limit   int   `json:"limit"`   // units one shopper may buy
	// UnitsUnpaid is, once sold out, the units in orders not paid yet:
	// what a cancel or the payment timeout can still return. Null before.
	UnitsUnpaid *int64 `json:"units_unpaid"`
}

// Shopper states in a room.
const (
	roomNotJoined = "not_joined"
	roomWaiting   = "waiting"  // in the queue (position null before the draw)
	roomAdmitted  = "admitted" // may buy now with the token
	roomExpired   = "expired"  // was admitted; the window to buy has passed
	roomSoldOut   = "sold_out"
	roomEnded     = "ended"
	roomPaused    = "paused" // an admin paused the sale: the shopper keeps their place
)

func (a roomAPI) join(c *gin.Context) { a.call(c, a.room.Join) }
func (a roomAPI) look(c *gin.Context) { a.call(c, a.room.Look) }

type roomOp func(ctx context.Context, itemID int64, user string, now time.Time, r room.Rules) (room.Standing, error)

// call joins or looks, warming the sale once if Redis does not know it.
func (a roomAPI) call(c *gin.Context, op roomOp) {
	it, ok := a.roomSale(c)
	if !ok {
		return
	}
	user, now, rules := userOf(c), a.now(), a.rules(it)
	var st room.Standing
	err := a.warmer.Warmed(c.Request.Context(), it.ID, func(ctx context.Context) error {
		var err error
		st, err = op(ctx, it.ID, user, now, rules)
		return err
	})
	if err != nil {
		a.fail(c, err)
		return
	}
	countRoom(a.counters, it.ID, st)
	c.JSON(http.StatusOK, a.present(it, st, user, now))
}

// roomSale loads the sale of :id and checks that it has a waiting room.
func (a roomAPI) roomSale(c *gin.Context) (catalog.Item, bool) {
	it, ok := a.itemFromPath(c)
	if ok && it.RoomRate <= 0 {
		a.fail(c, errNoWaitingRoom)
		return catalog.Item{}, false
	}
	return it, ok
}

// rules are the sale's: its rate, and the purchase token's life as the
// window an admitted shopper has to buy.
func (a roomAPI) rules(it catalog.Item) room.Rules {
	return room.Rules{Rate: float64(it.RoomRate), Window: a.window}
}

func (a roomAPI) present(it catalog.Item, st room.Standing, user string, now time.Time) roomJSON {
	unpaid := a.unpaidOf(it, st)
	out := roomJSON{ItemID: it.ID, Joined: st.Joined, roomStateJSON: roomState(it, st, now, unpaid),
		Chance: chanceOf(it, st, unpaid)}
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
		out.State = roomEnded
	case st.Paused && st.Joined:
		out.State = roomPaused
	case st.IsAdmitted():
		admitted, exp := st.AdmittedAt.UTC(), st.AdmittedAt.Add(a.admissions.TTL()).UTC()
		out.AdmittedAt, out.State = &admitted, roomExpired
		if now.Before(exp) {
			out.State, out.Token, out.TokenExpiresAt = roomAdmitted, a.admissions.IssueUntil(user, it.ID, exp), &exp
		}
	case st.SoldOut():
		out.State = roomSoldOut
	case st.Joined:
		out.State = roomWaiting
	default:
		out.State = roomNotJoined
	}
	return out
}

func roomState(it catalog.Item, st room.Standing, now time.Time, unpaid *int64) roomStateJSON {
	return roomStateJSON{Opened: st.Opened, Admitted: st.Admitted, Queued: st.Queued(), StockLeft: st.StockLeft,
		SoldOut: st.SoldOut(), Ended: st.Ended, Paused: st.Paused, Rate: it.RoomRate, OpensAt: it.StartsAt.UTC(), ServerTime: now.UTC(),
		Holding: st.Holding, Limit: max(it.PerUserLimit, 1), UnitsUnpaid: unpaid}
}

// roomEvents streams the room as everyone sees it (how many are admitted,
// queued, holding a turn, stock left, sold out, and then what may come
// back) each time it changes, as Server-Sent Events.
// A waiting page knows its own position and works out the rest, so this
// needs no sign-in and costs the server one tick per room, not per page.
func (a roomAPI) events(c *gin.Context) {
	it, ok := a.roomSale(c)
	if !ok {
		return
	}
	ch, stop := a.live.Subscribe(it.ID)
	defer stop()
	pump(a.sse, c, ch, func(sse *sseStream, l room.Live) { sse.send("room", roomState(it, l.Standing, a.now(), l.Unpaid)) })
}
