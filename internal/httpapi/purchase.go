package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/front"
	"github.com/seckill/seckill/internal/order"
	"github.com/seckill/seckill/internal/stock"
)

// Front is the purchase's front door (front.Front): the sold-out and paused
// marks and the admission gate answer before Redis is asked, and
// SoldOut lets the purchase route answer a marked sale before sign-in.
type Front interface {
	Reserve(ctx context.Context, r stock.Request) (stock.Reservation, error)
	SoldOut(itemID int64) bool
	// ScriptLimited: the reserve script checks the sale's rate limits.
	ScriptLimited(itemID int64) bool
}

// purchaseJSON is the 202 answer. unit_price_cents is the price the
// reserve script took the order at, so the shopper sees the price they
// got, and amount_cents what they are to pay; both are omitted for a
// replay of an order taken without a price (queued by a server from before
// prices travelled with the reservation).
type purchaseJSON struct {
	OrderID   string `json:"order_id"`
	ItemID    int64  `json:"item_id"`
	VariantID int64  `json:"variant_id"`
	UserID    string `json:"user_id"`
	Quantity  int    `json:"quantity"`
	Status    string `json:"status"`
	UnitPrice *int64 `json:"unit_price_cents,omitempty"`
	Amount    *int64 `json:"amount_cents,omitempty"`
}

// purchase reserves stock through the front door, which may answer itself
// (gated_* outcomes) or ask Redis with one script call. A replayed
// Idempotency-Key answers what the first request got, marked
// Idempotent-Replayed.
func (s shopAPI) purchase(c *gin.Context) {
	c.Set(handledKey, time.Now())
	req, err := s.purchaseRequest(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	res, err := s.front.Reserve(c.Request.Context(), req)
	if front.Gated(err) {
		c.Set(outcomeKey, "gated_"+lookup(err).Code)
		s.fail(c, err)
		return
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	outcome, status := "reserved", order.StatusPending
	if res.Replayed {
		outcome, status = "replayed", order.ReplayedStatus(c.Request.Context(), s.orders, res.OrderID, req.UserID)
		c.Header("Idempotent-Replayed", "true")
	}
	c.Set(outcomeKey, outcome)
	out := purchaseJSON{OrderID: res.OrderID, ItemID: req.ItemID, VariantID: res.VariantID,
		UserID: req.UserID, Quantity: res.Quantity, Status: status}
	out.UnitPrice, out.Amount = order.Amount(res.UnitPriceCents, res.Quantity)
	c.JSON(http.StatusAccepted, out)
}

func (s shopAPI) purchaseRequest(c *gin.Context) (stock.Request, error) {
	id, err := pathID(c, errItemNotFound)
	if err != nil {
		return stock.Request{}, err
	}
	variantID, qty, err := purchaseBody(c)
	if err != nil {
		return stock.Request{}, err
	}
	if qty < 1 {
		return stock.Request{}, errInvalidQuantity
	}
	key := c.GetHeader("Idempotency-Key")
	if !validIdempotencyKey(key) {
		return stock.Request{}, invalid("Idempotency-Key", "Idempotency-Key must be 1-128 visible ASCII characters")
	}
	return stock.Request{ItemID: id, VariantID: variantID, UserID: userOf(c), Quantity: qty, OrderID: s.newOrderID(),
		IdempotencyKey: key, Now: s.now(), Admitted: c.GetBool(admittedKey), ClientKey: c.GetString(clientKeyKey)}, nil
}
