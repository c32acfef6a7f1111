package httpapi

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/order"
)

// OrderAdmin is an admin's hand on shoppers' orders (sale.Service).
type OrderAdmin interface {
	CancelOrder(ctx context.Context, orderID string) (order.Order, error)
}

// cancelOrder cancels any shopper's unpaid order, reason admin, and puts
// its stock back on sale; a paid order is 409 order_paid.
func (a adminAPI) cancelOrder(c *gin.Context) {
	o, err := a.orders.CancelOrder(c.Request.Context(), c.Param("id"))
	if err != nil {
		a.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toJSON(o))
}
