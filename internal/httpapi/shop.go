package httpapi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/saleview"
	"github.com/seckill/seckill/internal/stock"
	"github.com/seckill/seckill/internal/token"
)

// shopAPI is what every shopper's page calls: the sales, purchase tokens
// and the purchase itself.
type shopAPI struct {
	saleView
	snaps      *snapshots
	front      Front       // the marks and the gate, then the reservation
	orders     OrderReader // a replayed order's status, once it is in MySQL
	tokens     token.Purchase
	newOrderID func() string
}

// listItems answers a page of the sales, with this moment's server_time
// beside it: pages sync their clocks from it. The first page at the
// default limit comes from the shared snapshot.
func (s shopAPI) listItems(c *gin.Context) {
	cur, limit, err := pageQuery(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	var snap saleview.Snapshot
	if cur == nil && limit == defaultPageLimit {
		snap, err = s.snaps.FirstPage(c.Request.Context())
	} else {
		snap, err = s.snaps.Page(c.Request.Context(), cur, limit)
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	now, err := s.now().UTC().MarshalJSON()
	if err != nil {
		s.fail(c, err)
		return
	}
	// The snapshot is the page's JSON object: server_time goes in before
	// its closing brace.
	body := make([]byte, 0, len(snap.Body)+64)
	body = append(append(append(body, snap.Body[:len(snap.Body)-1]...), `,"server_time":`...), now...)
	c.Data(http.StatusOK, "application/json; charset=utf-8", append(body, '}'))
}

// getItem is the sale page's once-a-second refresh.
func (s shopAPI) getItem(c *gin.Context) {
	id, err := pathID(c, errItemNotFound)
	if err == nil {
		var snap saleview.Snapshot
		if snap, err = s.snaps.Item(c.Request.Context(), id); err == nil {
			writeSnapshot(c, snap)
			return
		}
	}
	s.fail(c, err)
}

// serverTime is the countdown's clock sync: never cached, since its whole
// point is this moment.
func (s shopAPI) serverTime(c *gin.Context) {
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusOK, gin.H{"server_time": s.now().UTC()})
}

// purchaseToken issues a token from the opening second until the end; a
// sale with a waiting room issues its tokens through the room instead.
func (s shopAPI) purchaseToken(c *gin.Context) {
	it, ok := s.itemFromPath(c)
	if !ok {
		return
	}
	now := s.now()
	switch {
	case it.RoomRate > 0:
		s.fail(c, errWaitingRoom)
		return
	case !now.Before(it.EndsAt):
		s.fail(c, stock.ErrEnded)
		return
	case it.Paused:
		s.fail(c, stock.ErrPaused)
		return
	case now.Before(it.StartsAt):
		s.fail(c, stock.ErrNotStarted)
		return
	}
	tok, exp := s.tokens.Issue(userOf(c), it.ID, now)
	c.JSON(http.StatusOK, gin.H{"token": tok, "expires_at": exp.UTC()})
}
