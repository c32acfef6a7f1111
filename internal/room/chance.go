package room

// A waiting shopper's chance, worked out from what one room call read at
// one instant, so the figures agree with each other.
//
// Who buys before a waiting shopper: the admitted shoppers whose turn is
// still open (Holding: the room lets them in ahead of everyone waiting) and
// the shoppers ahead in the queue (Ahead). Each of them takes at most one
// order of at most Limit units (the sale's per-shopper limit), and may take
// nothing: a turn can pass unused, and its units stay for the next in line.
// Units left are the units in nobody's order (the sale's Redis stock); the
// room never admits more turns than they can serve, and a unit an open turn
// might take is still a unit left until it is bought.
//
// So for a shopper with units U left and B = Holding + Ahead shoppers
// before them:
//
//	likely    U > B × Limit   a unit is left even if everyone before buys
//	                          the most allowed: it is theirs if they buy in
//	                          their turn (and the sale runs until then)
//	possible  U > B           enough if everyone before buys one unit
//	unlikely  U >= 1          fewer units than shoppers before: they get one
//	                          only if some before them do not buy
//	sold_out  U == 0          nothing is for sale now
//
// There is no percentage: one would need a guess at how many of those
// before will buy, and the page shows the figures it is drawn from instead.
//
// Sold out is final when no unit can come back: a unit comes back only when
// an order not paid yet is cancelled (by its shopper, an admin or the
// payment timeout), and paid orders cannot be cancelled. So it is final once
// every unit taken is paid for (UnitsUnpaid == 0), and then the shopper is
// told to stop waiting. Until then a returned unit goes to the next in line,
// which the page says; it does not say "final" on a guess. (An admin adding
// stock can always reopen a sale; the page keeps listening for that.)

// Outlook is how a waiting shopper's chance of buying looks.
type Outlook string

// The outlooks, from best to worst.
const (
	Likely   Outlook = "likely"
	Possible Outlook = "possible"
	Unlikely Outlook = "unlikely"
	SoldOut  Outlook = "sold_out"
)

// Odds are the figures a waiting shopper's chance is drawn from.
type Odds struct {
	UnitsLeft int64 // units in nobody's order
	Holding   int64 // admitted shoppers whose turn to buy is still open
	Ahead     int64 // shoppers before this one in the queue, not admitted yet
	Limit     int64 // the most units one shopper may buy, at least 1
}

// Before is how many shoppers may buy before this one.
func (o Odds) Before() int64 { return o.Holding + o.Ahead }

// UnitsHeld is how many of the units left the open turns may still take:
// the units that come back to the queue when those turns pass unused.
func (o Odds) UnitsHeld() int64 { return min(o.UnitsLeft, o.Holding*o.limit()) }

func (o Odds) limit() int64 { return max(o.Limit, 1) }

// Outlook classifies the odds (see the rules above).
func (o Odds) Outlook() Outlook {
	before := o.Before()
	switch {
	case o.UnitsLeft <= 0:
		return SoldOut
	// U > B×L, written so that a long queue cannot overflow.
	case (o.UnitsLeft-1)/o.limit() >= before:
		return Likely
	case o.UnitsLeft > before:
		return Possible
	}
	return Unlikely
}

// Unpaid is the units taken and not paid for yet, of a sale of total units
// with paid units in paid orders and left units in nobody's order: orders
// confirmed and unpaid, orders on their way to MySQL, and cancelled orders
// whose unit is on its way back. Each may still return a unit.
func Unpaid(total, paid, left int64) int64 { return max(total-paid-max(left, 0), 0) }

// Final reports whether a sell-out is final: nothing is left and no unit
// can come back, as every unit taken is paid for (unpaid is the units in
// orders not paid yet, including orders not yet written to MySQL).
func Final(unitsLeft, unpaid int64) bool { return unitsLeft <= 0 && unpaid <= 0 }

// Odds returns the shopper's odds with the sale's per-shopper limit, and
// false when there are none to give: the shopper is not waiting in an open
// room with a known place (not joined, before the opening draw, admitted,
// or the sale has ended).
func (s Standing) Odds(limit int64) (Odds, bool) {
	if !s.Joined || s.Position < 0 || s.IsAdmitted() || s.Ended {
		return Odds{}, false
	}
	return Odds{UnitsLeft: max(s.StockLeft, 0), Holding: s.Holding, Ahead: s.Ahead(), Limit: max(limit, 1)}, true
}
