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

// unpaidOf is the units of it that can still come back to its sold-out
// room, nil when not sold out or not known. The item's own stock_total is
// passed on, as it may be newer than the shared reading.
func (a roomAPI) unpaidOf(it catalog.Item, st room.Standing) *int64 {
	if a.unpaid == nil {
		return nil
	}
	return a.unpaid.Of(it.ID, int64(it.StockTotal), st)
}
