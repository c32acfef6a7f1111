package httpapi

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/room"
	"github.com/seckill/seckill/internal/tally"
)

// countPurchase counts, per sale, the purchases answered 429 (by the limit
// guard or the reserve script) and those the admission gate shed, for the
// post-sale report. It costs an atomic add, and only on those answers.
func countPurchase(t *tally.Set) gin.HandlerFunc {
	return func(c *gin.Context) {
		c.Next()
		if t == nil {
			return
		}
		kind := tally.RateLimited
		switch {
		case c.Writer.Status() == http.StatusTooManyRequests:
		case c.Writer.Status() == http.StatusServiceUnavailable && c.GetString(outcomeKey) == "gated_"+errBusy.Code:
			kind = tally.Shed
		default:
			return
		}
		if id, err := strconv.ParseInt(c.Param("id"), 10, 64); err == nil {
			t.Add(id, kind)
		}
	}
}

// countRoom records the room's running totals a join or look saw.
func countRoom(t *tally.Set, itemID int64, st room.Standing) {
	t.Level(itemID, tally.RoomJoins, st.Queued())
	t.Level(itemID, tally.RoomAdmits, st.Admitted)
}
