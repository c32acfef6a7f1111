package httpapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/order"
)

var errOrderPending = errors.New("order still pending in redis")

// payOrder marks the caller's order paid (payment is simulated). A pay that
// loses the race to a cancel or the payment timeout gets 409 and changes
// nothing.
func (s *Server) payOrder(c *gin.Context) {
	ctx, user, id := c.Request.Context(), userOf(c), c.Param("id")
	o, err := s.Sales.Pay(ctx, id, user)
	s.answerOrder(c, ctx, user, id, o, err)
}

// cancelOrder cancels the caller's unpaid order and puts its stock back on
// sale; the shopper may buy again.
func (s *Server) cancelOrder(c *gin.Context) {
	ctx, user, id := c.Request.Context(), userOf(c), c.Param("id")
	o, err := s.Sales.Cancel(ctx, id, user, order.ReasonShopper)
	s.answerOrder(c, ctx, user, id, o, err)
}

// answerOrder writes the order, or the error; an order MySQL does not have
// yet but Redis does is "pending", not "not found".
func (s *Server) answerOrder(c *gin.Context, ctx context.Context, user, id string, o order.Order, err error) {
	if errors.Is(err, order.ErrNotFound) {
		if pending, perr := s.pendingOrders(ctx, user); perr == nil {
			for _, p := range pending {
				if p.OrderID == id {
					err = errOrderPending
				}
			}
		}
	}
	if err != nil {
		writeError(c, err)
		return
	}
	c.JSON(http.StatusOK, toJSON(o))
}
