package httpapi

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"sort"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/catalog"
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
	catalog SaleReader // names the variants of orders still pending
	orders  OrderReader
	pending PendingOrders
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
	o, err := a.find(c.Request.Context(), userOf(c), c.Param("id"))
	if err != nil {
		a.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, o)
}

// find is the shopper's order as GET /orders/{id} shows it, or
// errOrderNotFound.
func (a orderAPI) find(ctx context.Context, user, id string) (orderJSON, error) {
	o, err := a.orders.Get(ctx, id)
	switch {
	case err == nil && o.UserID == user:
		return toJSON(o), nil
	case err != nil && !errors.Is(err, order.ErrNotFound):
		return orderJSON{}, err
	}
	p, found, err := a.pendingOrder(ctx, user, id)
	switch {
	case err != nil:
		return orderJSON{}, err
	case !found:
		return orderJSON{}, errOrderNotFound
	}
	return p, nil
}

// list merges persisted orders with those still pending in Redis. MySQL
// is read first: an order persisted in between shows as pending once.
func (a orderAPI) list(c *gin.Context) {
	ctx, user := c.Request.Context(), userOf(c)
	stored, err := a.orders.ListByUser(ctx, user)
	if err != nil {
		a.fail(c, err)
		return
	}
	pending, err := a.pendingOrders(ctx, user)
	if err != nil {
		a.fail(c, err)
		return
	}
	seen := make(map[string]bool, len(stored))
	out := make([]orderJSON, 0, len(stored)+len(pending))
	for _, o := range stored {
		seen[o.ID] = true
		out = append(out, toJSON(o))
	}
	for _, p := range pending {
		if !seen[p.OrderID] {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.After(out[j].CreatedAt) })
	// demo_payments tells the page whether to offer its Pay button.
	c.JSON(http.StatusOK, gin.H{"orders": out, "demo_payments": a.demoPay})
}

// pendingOrders returns the shopper's reservations in Redis whose rows may
// not exist yet; callers drop the ones MySQL already has. Only the sales in
// the registry are asked: a retired sale left it, its orders all in MySQL,
// so a shop's years of finished sales cost a lookup nothing.
func (a orderAPI) pendingOrders(ctx context.Context, user string) ([]orderJSON, error) {
	items, err := a.pending.WarmItems(ctx)
	if err != nil {
		return nil, err
	}
	held, err := a.pending.BuyerOf(ctx, items, user)
	if err != nil {
		return nil, err
	}
	out := make([]orderJSON, 0, len(held))
	for itemID, b := range held {
		o := orderJSON{OrderID: b.OrderID, ItemID: itemID, VariantID: b.VariantID, UserID: user,
			Quantity: b.Quantity, Status: order.StatusPending, CreatedAt: b.CreatedAt}
		label, price, err := a.variantOf(ctx, itemID, b.VariantID)
		if err != nil {
			return nil, err
		}
		// The price the script took the order at; a reservation queued
		// without one (by a server from before prices travelled with it)
		// is priced when persisted, at the price then: today's is the
		// best it can be told.
		o.VariantLabel = label
		o.UnitPrice, o.Amount = order.Amount(cmp.Or(b.UnitPriceCents, price), b.Quantity)
		out = append(out, o)
	}
	return out, nil
}

// variantOf names a variant of a sale and its price now (nil if the sale
// or variant is gone); a shopper holds few orders at once, so this costs a
// read or two.
func (a orderAPI) variantOf(ctx context.Context, itemID, variantID int64) (string, *int64, error) {
	it, err := a.catalog.Get(ctx, itemID)
	if errors.Is(err, catalog.ErrNotFound) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	v, ok := it.Variant(variantID)
	if !ok {
		return "", nil, nil
	}
	price := v.Price(it)
	return v.Label, &price, nil
}

// pendingOrder is the shopper's reservation id in Redis, if it is there.
func (a orderAPI) pendingOrder(ctx context.Context, user, id string) (orderJSON, bool, error) {
	pending, err := a.pendingOrders(ctx, user)
	if err != nil {
		return orderJSON{}, false, err
	}
	for _, p := range pending {
		if p.OrderID == id {
			return p, true, nil
		}
	}
	return orderJSON{}, false, nil
}
