package httpapi

import (
	"context"
	"sync"
	"time"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/room"
)

// PaidUnits reads a sale's units in paid orders and its stock_total, as of
// one instant (order.Store).
type PaidUnits interface {
	PaidUnits(ctx context.Context, itemID int64) (paid, total int64, err error)
}

// chanceJSON is a waiting shopper's chance of buying (see room.Odds for
// the rules): the outlook and the figures it is drawn from.
type chanceJSON struct {
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

// chanceOf is the shopper's chance, nil when they have none to show (see
// room.Standing.Odds).
func chanceOf(it catalog.Item, st room.Standing, unpaid *int64) *chanceJSON {
	o, ok := st.Odds(int64(it.PerUserLimit))
	if !ok {
		return nil
	}
	return &chanceJSON{Outlook: o.Outlook(), UnitsLeft: o.UnitsLeft, UnitsHeld: o.UnitsHeld(), Holding: o.Holding,
		Ahead: o.Ahead, Limit: o.Limit, UnitsUnpaid: unpaid, Final: unpaid != nil && room.Final(o.UnitsLeft, *unpaid)}
}

// unpaidTTL is how long one reading of a sale's paid units serves every
// shopper who asks. Paid units only grow, so a stale reading overstates
// what can come back: it may say "not final" a moment too long, not "final"
// too soon. The total moves only when an admin changes the stock, and the
// request's own reading of the sale is taken when it is the larger.
const unpaidTTL = time.Second

// unpaidUnits works out, for a sold-out room, how many units are in orders
// not paid yet (room.Unpaid), for shoppers asking where they stand (live
// pages hear it from the room.Watcher). It asks MySQL only while a room is
// sold out, at most once per unpaidTTL per sale, however many ask.
type unpaidUnits struct {
	src   PaidUnits
	mu    sync.Mutex
	sales map[int64]*memo[[2]int64] // paid, total
}

func newUnpaidUnits(src PaidUnits) *unpaidUnits {
	return &unpaidUnits{src: src, sales: map[int64]*memo[[2]int64]{}}
}

// of returns the units of it that can still come back to its sold-out
// room, or nil when the room is not sold out or MySQL cannot tell.
func (u *unpaidUnits) of(it catalog.Item, st room.Standing) *int64 {
	if u == nil || u.src == nil || !st.SoldOut() || st.Ended {
		return nil
	}
	f, err := u.memo(it.ID).get()
	if err != nil {
		return nil // not final then; the room watcher logs MySQL's failure once a second
	}
	n := room.Unpaid(max(f[1], int64(it.StockTotal)), f[0], st.StockLeft)
	return &n
}

// memo is the sale's reading, made on first use. Only sales with a room
// are asked for, so the map is bounded by the sales that exist.
func (u *unpaidUnits) memo(itemID int64) *memo[[2]int64] {
	u.mu.Lock()
	defer u.mu.Unlock()
	m := u.sales[itemID]
	if m == nil {
		m = newMemo(unpaidTTL, func() ([2]int64, error) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			paid, total, err := u.src.PaidUnits(ctx, itemID)
			return [2]int64{paid, total}, err
		})
		u.sales[itemID] = m
	}
	return m
}
