package httpapi

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/order"
)

// OrderReader reads persisted orders (order.Store).
type OrderReader interface {
	Get(ctx context.Context, id string) (order.Order, error)
	ListByUser(ctx context.Context, userID string) ([]order.Order, error)
	OrderPages
}

// PendingOrders finds reservations still in Redis, not yet in MySQL
// (stock.Store).
type PendingOrders interface {
	WarmItems(ctx context.Context) ([]int64, error)
	BuyerOf(ctx context.Context, itemIDs []int64, userID string) (map[int64]keyspace.Buyer, error)
}

// OrderLife pays and cancels orders (sale.Service).
type OrderLife interface {
	Pay(ctx context.Context, orderID, userID string) (order.Order, error)
	Cancel(ctx context.Context, orderID, userID, reason string) (order.Order, error)
}

// orderAPI is a shopper's orders: what they hold, paying and cancelling.
type orderAPI struct {
	replier
	lookup  order.Lookup
	life    OrderLife
	feed    OrderFeed // nil: streams only look now and then
	sse     sseStreams
	demoPay bool // shoppers may pay with a button (Settings.DemoPayments)
}

// orderJSON is an order as the API shows it.
type orderJSON = order.View

func toJSON(o order.Order) orderJSON { return o.View() }

// get answers from MySQL, or from Redis while the order is still pending
// there. Another shopper's order is 404, as if it did not exist.
func (a orderAPI) get(c *gin.Context) {
	o, err := a.lookup.Find(c.Request.Context(), userOf(c), c.Param("id"))
	if err != nil {
		a.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, o)
}

// list answers the shopper's orders, persisted and pending, newest first.
func (a orderAPI) list(c *gin.Context) {
	out, err := a.lookup.List(c.Request.Context(), userOf(c))
	if err != nil {
		a.fail(c, err)
		return
	}
	// demo_payments tells the page whether to offer its Pay button.
	c.JSON(http.StatusOK, gin.H{"orders": out, "demo_payments": a.demoPay})
}
