package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/stock"
)

// soldOutMark answers a purchase of a sale this server has seen sell out
// without asking Redis, before sign-in, the rate limits and the purchase
// token are even checked: the answer costs nothing and tells nothing the
// sale page does not (its stock is public). A request with
// an Idempotency-Key goes on, since it may be the retry of the purchase
// that took the last unit and must get that order back.
func (g *guards) soldOutMark(c *gin.Context) {
	if g.front == nil || c.GetHeader("Idempotency-Key") != "" {
		return
	}
	id, err := pathID(c, errItemNotFound)
	if err != nil || !g.front.SoldOut(id) {
		return
	}
	c.Data(http.StatusGone, jsonContentType, soldOutBody)
	c.Abort()
}

const jsonContentType = "application/json; charset=utf-8"

// soldOutBody is the sold-out answer, encoded once: the storm after a
// sell-out is answered thousands of times a second.
var soldOutBody = func() []byte {
	b, err := json.Marshal(gin.H{"error": lookup(stock.ErrSoldOut)})
	if err != nil {
		panic(err)
	}
	return b
}()
