package front

import (
	"errors"
	"sync"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/stock"
)

// scripted is the sales this server has seen Redis answer a purchase for:
// the reserve script checks their rate limits in the round trip it makes
// anyway, so the HTTP layer need not (ScriptLimited). Only real sales get
// there, so made-up ids cannot grow it.
type scripted struct{ m sync.Map }

// saw records what Redis (or MySQL, warming) answered r.
func (s *scripted) saw(r stock.Request, err error) {
	switch {
	case err == nil || stock.Refused(err):
		s.m.Store(r.ItemID, struct{}{})
	case errors.Is(err, catalog.ErrNotFound):
		s.m.Delete(r.ItemID) // gone: its purchases are checked before Redis again
	}
}

// ScriptLimited reports whether the reserve script rate-limits the sale's
// purchases: Redis has answered one here, and the sale was not removed
// since.
func (f *Front) ScriptLimited(itemID int64) bool {
	_, ok := f.scripted.m.Load(itemID)
	return ok
}
