// Package front is the purchase's front door: every decision taken before
// Redis is asked to reserve. A storm of shoppers for a few units costs a
// Redis round trip each unless something answers first, and three things
// may, all per server process: the sold-out marks (marks.go, lifted over
// pub/sub when stock returns: listen.go), the paused marks (paused.go), and
// the admission gate that sheds a stampede on a variant's last units
// (gate.go). They decide from what Redis answered before, so the one type
// that asks them (verdict.go) also tells them each answer.
//
// The purchase handler calls Front.Reserve once; a reader follows the
// purchase from the handler to here to sale.Service and no further back.
package front

import (
	"context"
	"errors"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/stock"
)

// ErrBusy is the gate shedding a purchase: many shoppers are trying for
// what is left of the variant, and this one is told to try again.
var ErrBusy = errors.New("front: many shoppers are trying for what is left")

// Sales reserves stock, warming a sale Redis does not know yet
// (sale.Service).
type Sales interface {
	Reserve(ctx context.Context, r stock.Request) (stock.Reservation, error)
}

// Keys says whether a shopper's Idempotency-Key has reserved in a sale
// (stock.Store).
type Keys interface {
	IdempotencyKeyUsed(ctx context.Context, itemID int64, userID, key string) (bool, error)
}

// Front reserves stock for the purchases the marks and the gate let
// through.
type Front struct {
	sales    Sales
	keys     Keys
	gate     *Gate        // nil: every purchase reaches Redis
	marks    *Marks       // nil: no local sold-out marks
	paused   *pausedSales // sales Redis just said are paused
	scripted scripted     // sales whose rate limits the reserve script checks
}

// New returns the front door of sales; a nil gate or marks is none.
func New(sales Sales, keys Keys, gate *Gate, marks *Marks) *Front {
	return &Front{sales: sales, keys: keys, gate: gate, marks: marks, paused: newPausedSales()}
}

// Reserve answers r itself when the marks or the gate say so, else asks
// sales and tells them the answer. What it answers itself is a *GatedError
// wrapping ErrBusy, stock.ErrPaused or a stock sold-out error; otherwise it
// returns what sales.Reserve returned.
func (f *Front) Reserve(ctx context.Context, r stock.Request) (stock.Reservation, error) {
	if err := f.admit(ctx, r); err != nil {
		return stock.Reservation{}, &GatedError{Err: err}
	}
	res, err := f.sales.Reserve(ctx, r)
	f.observe(r, res, err)
	f.scripted.saw(r, err)
	return res, err
}

// SoldOut reports whether the sale is marked sold out on this server: the
// purchase route answers those before sign-in (httpapi's soldOutMark).
func (f *Front) SoldOut(itemID int64) bool { return f.marks.SoldOut(itemID) }

// Returned lifts the marks and the gate's caps of a sale whose stock came
// back, here or (announced over pub/sub) on another server.
func (f *Front) Returned(r keyspace.Return) {
	f.marks.Returned(r.ItemID, r.Count)
	f.gate.Returned(r.ItemID, r.Left)
}

// GatedError is a purchase the front door answered without Redis: the
// purchase metrics count it apart (outcome gated_*), and the post-sale
// report counts the busy ones as shed.
type GatedError struct{ Err error }

func (e *GatedError) Error() string { return e.Err.Error() }

// Unwrap lets errors.Is and errors.As see the verdict.
func (e *GatedError) Unwrap() error { return e.Err }

// Gated reports whether err is the front door's own answer.
func Gated(err error) bool {
	var g *GatedError
	return errors.As(err, &g)
}
