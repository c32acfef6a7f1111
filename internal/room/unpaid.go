package room

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// PaidUnits reads a sale's units in paid orders and its stock_total, as of
// one instant (order.Store).
type PaidUnits interface {
	PaidUnits(ctx context.Context, itemID int64) (paid, total int64, err error)
}

// unpaidEvery is how long one reading of a sale's paid units serves the
// watcher and every shopper who asks: a payment can make a sell-out final
// without changing the room, and pages should hear of it soon, at one MySQL
// query per sold-out room and server a second. Paid units only grow, so a
// stale reading overstates what can come back: it may say "not final" a
// moment too long, never "final" too soon. It is real time, whatever clock
// decides the sales.
const unpaidEvery = time.Second

// unpaidTimeout bounds one reading. The reading is shared, so it runs on a
// context of its own: a shopper who hangs up must not fail it for the rest.
const unpaidTimeout = 2 * time.Second

// UnpaidUnits works out, for a sold-out room, the units taken and not paid
// for (Unpaid): what a cancel or the payment timeout can still return, 0
// making the sell-out final. It is the one reading of them on a server,
// shared by the Watcher (for live pages) and the handlers (for shoppers
// asking where they stand). It asks MySQL only while a room is sold out, at
// most once per unpaidEvery per sale, one reading at a time, however many
// ask.
type UnpaidUnits struct {
	src PaidUnits
	log *slog.Logger

	mu    sync.Mutex
	sales map[int64]*paidReading
}

// paidReading is a sale's last count of paid units. Its lock is held while
// MySQL is asked, so callers arriving meanwhile wait for that answer.
type paidReading struct {
	mu          sync.Mutex
	at          time.Time
	paid, total int64
	err         error
}

// NewUnpaidUnits reads paid units from src; a nil src never knows them.
func NewUnpaidUnits(src PaidUnits, log *slog.Logger) *UnpaidUnits {
	if log == nil {
		log = slog.Default()
	}
	return &UnpaidUnits{src: src, log: log, sales: map[int64]*paidReading{}}
}

// Of returns the units of sale itemID that can still come back to its room
// standing at st, or nil while the room is not sold out, once the sale has
// ended, or when MySQL cannot tell (then it is not final: the failure is
// logged, and asked again after unpaidEvery). total is the caller's own
// reading of the sale's stock_total, 0 for none: the larger is taken, as an
// admin adding stock must not make a reading from before look final.
func (u *UnpaidUnits) Of(itemID, total int64, st Standing) *int64 {
	if u == nil || u.src == nil || !st.SoldOut() || st.Ended {
		return nil
	}
	r := u.reading(itemID)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.at.IsZero() || time.Since(r.at) >= unpaidEvery {
		u.read(itemID, r)
	}
	if r.err != nil {
		return nil
	}
	n := Unpaid(max(r.total, total), r.paid, st.StockLeft)
	return &n
}

// Forget drops the sale's reading, so the next sell-out reads afresh. The
// Watcher, which sees every change of the room, calls it when the room
// reopens or ends, and when the sale stops being watched (which also
// bounds the map by the sales being watched). A reading in flight lands in
// the dropped entry, not in the next one.
func (u *UnpaidUnits) Forget(itemID int64) {
	if u == nil {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.sales, itemID)
}

func (u *UnpaidUnits) reading(itemID int64) *paidReading {
	u.mu.Lock()
	defer u.mu.Unlock()
	r := u.sales[itemID]
	if r == nil {
		r = &paidReading{}
		u.sales[itemID] = r
	}
	return r
}

// read asks MySQL; the caller holds r.mu.
func (u *UnpaidUnits) read(itemID int64, r *paidReading) {
	ctx, cancel := context.WithTimeout(context.Background(), unpaidTimeout)
	defer cancel()
	r.paid, r.total, r.err = u.src.PaidUnits(ctx, itemID)
	r.at = time.Now()
	if r.err != nil {
		u.log.Warn("room: cannot count paid units", "item_id", itemID, "err", r.err)
	}
}
