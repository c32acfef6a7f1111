package httpapi

import (
	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/room"
)

// UnpaidUnits says what can still come back to a sold-out room: the one
// reading a server keeps, shared with the room watcher (room.UnpaidUnits).
type UnpaidUnits interface {
	Of(itemID, total int64, st room.Standing) *int64
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

// unpaidOf is the units of it that can still come back to its sold-out
// room, nil when not sold out or not known. The item's own stock_total is
// passed on, as it may be newer than the shared reading.
func (a roomAPI) unpaidOf(it catalog.Item, st room.Standing) *int64 {
	if a.unpaid == nil {
		return nil
	}
	return a.unpaid.Of(it.ID, int64(it.StockTotal), st)
}
