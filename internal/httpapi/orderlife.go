package httpapi

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/order"
)

// pay marks the caller's order paid (payment is simulated), when demo
// payments are on; otherwise only the payment provider's callback pays. A
// pay that loses the race to a cancel or the payment timeout gets 409 and
// changes nothing.
func (a orderAPI) pay(c *gin.Context) {
	if !a.demoPay {
		a.fail(c, errDemoPaymentsOff)
		return
	}
	o, err := a.life.Pay(c.Request.Context(), c.Param("id"), userOf(c))
	a.answerOrder(c, o, err)
}

// cancel cancels the caller's unpaid order and puts its stock back on
// sale; the shopper may buy again.
func (a orderAPI) cancel(c *gin.Context) {
	o, err := a.life.Cancel(c.Request.Context(), c.Param("id"), userOf(c), order.ReasonShopper)
	a.answerOrder(c, o, err)
}

// answerOrder writes the order as GET shows it (its variant named and, if
// it was persisted before prices were kept, priced: the paying and
// cancelling writes do not read them), or the error; an order MySQL does
// not have yet but Redis does is "pending", not "not found".
func (a orderAPI) answerOrder(c *gin.Context, o order.Order, err error) {
	ctx := c.Request.Context()
	if errors.Is(err, order.ErrNotFound) {
		if found, perr := a.lookup.Pending(ctx, userOf(c), c.Param("id")); perr == nil && found {
			err = errOrderPending
		}
	}
	if err == nil {
		o, err = a.lookup.Named(ctx, o)
	}
	if err != nil {
		a.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toJSON(o))
}
