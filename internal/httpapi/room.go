package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/room"
	"github.com/seckill/seckill/internal/saleview"
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

// UnpaidUnits says what can still come back to a sold-out room: the one
// reading a server keeps, shared with the room watcher (room.UnpaidUnits).
type UnpaidUnits interface {
	Of(itemID, total int64, st room.Standing) *int64
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

// present is the shopper's place, with the token to buy with once
// admitted.
func (a roomAPI) present(it catalog.Item, st room.Standing, user string, now time.Time) saleview.Place {
	return saleview.PlaceOf(it, st, now, a.unpaidOf(it, st), saleview.Admission{TTL: a.admissions.TTL(),
		Issue: func(exp time.Time) string { return a.admissions.IssueUntil(user, it.ID, exp) }})
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
	pump(a.sse, c, ch, func(sse *sseStream, l room.Live) {
		sse.send("room", saleview.RoomOf(it, l.Standing, a.now(), l.Unpaid))
	})
}

// unpaidOf is the units of it that can still come back to its sold-out
// room, nil when not sold out or not known. The item's own stock_total is
// passed on, as it may be newer than the shared reading.
func (a roomAPI) unpaidOf(it catalog.Item, st room.Standing) *int64 {
	if a.unpaid == nil {
		return nil
	}
	return a.unpaid.Of(it.ID, int64(it.StockTotal), st)
}
