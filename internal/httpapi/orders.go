package httpapi

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/order"
)

type orderJSON struct {
	OrderID   string    `json:"order_id"`
	ItemID    int64     `json:"item_id"`
	UserID    string    `json:"user_id"`
	Quantity  int       `json:"quantity"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"created_at"`
}

func toJSON(o order.Order) orderJSON {
	return orderJSON{OrderID: o.ID, ItemID: o.ItemID, UserID: o.UserID, Quantity: o.Quantity,
		Status: o.Status, CreatedAt: o.CreatedAt.UTC()}
}

var errOrderNotFound = apiErr(http.StatusNotFound, "order_not_found", "no such order")

// getOrder answers from MySQL, or from Redis while the order is still
// pending there. Another shopper's order is 404, as if it did not exist.
func (s *Server) getOrder(c *gin.Context) {
	ctx, user, id := c.Request.Context(), userOf(c), c.Param("id")
	o, err := s.Orders.Get(ctx, id)
	switch {
	case err == nil && o.UserID == user:
		c.JSON(http.StatusOK, toJSON(o))
		return
	case err != nil && !errors.Is(err, order.ErrNotFound):
		writeError(c, err)
		return
	}
	pending, err := s.pendingOrders(ctx, user)
	if err != nil {
		writeError(c, err)
		return
	}
	for _, p := range pending {
		if p.OrderID == id {
			c.JSON(http.StatusOK, p)
			return
		}
	}
	writeError(c, errOrderNotFound)
}

// listOrders merges persisted orders with those still pending in Redis.
// MySQL is read first: an order persisted in between shows as pending once.
func (s *Server) listOrders(c *gin.Context) {
	ctx, user := c.Request.Context(), userOf(c)
	stored, err := s.Orders.ListByUser(ctx, user)
	if err != nil {
		writeError(c, err)
		return
	}
	pending, err := s.pendingOrders(ctx, user)
	if err != nil {
		writeError(c, err)
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
	c.JSON(http.StatusOK, gin.H{"orders": out})
}

// pendingOrders returns the shopper's reservations in Redis whose rows may
// not exist yet; callers drop the ones MySQL already has.
func (s *Server) pendingOrders(ctx context.Context, user string) ([]orderJSON, error) {
	items, err := s.Stock.WarmItems(ctx)
	if err != nil {
		return nil, err
	}
	held, err := s.Stock.BuyerOf(ctx, items, user)
	if err != nil {
		return nil, err
	}
	out := make([]orderJSON, 0, len(held))
	for itemID, b := range held {
		out = append(out, orderJSON{OrderID: b.OrderID, ItemID: itemID, UserID: user, Quantity: b.Quantity,
			Status: order.StatusPending, CreatedAt: b.CreatedAt})
	}
	return out, nil
}
