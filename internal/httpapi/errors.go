// Package httpapi is the HTTP layer: Gin routes, authentication, JSON in and
// out, and the one table that turns domain errors into HTTP answers.
package httpapi

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/order"
	"github.com/seckill/seckill/internal/room"
	"github.com/seckill/seckill/internal/stock"
)

// Error is an answer the API gives on purpose: a code shoppers' programs can
// switch on, a message people can read, and the field at fault if any.
type Error struct {
	Status    int    `json:"-"`
	Code      string `json:"code"`
	Message   string `json:"message"`
	Field     string `json:"field,omitempty"`
	OrderID   string `json:"order_id,omitempty"` // already_purchased: the order held
	wrongType bool   // a JSON value of the wrong type, e.g. "2" for a number
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

func apiErr(status int, code, msg string) *Error {
	return &Error{Status: status, Code: code, Message: msg}
}

func invalid(field, msg string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "invalid_request", Message: msg, Field: field}
}

// errorTable maps domain errors to answers. It is the only place that does.
var errorTable = []struct {
	err error
	ans *Error
}{
	{catalog.ErrNotFound, apiErr(http.StatusNotFound, "item_not_found", "no such sale")},
	{catalog.ErrStockConflict, apiErr(http.StatusConflict, "stock_conflict", "stock_total cannot go below what is already sold")},
	{stock.ErrStockConflict, apiErr(http.StatusConflict, "stock_conflict", "stock_total cannot go below what is already sold")},
	{order.ErrNotFound, apiErr(http.StatusNotFound, "order_not_found", "no such order")},
	{order.ErrPaid, apiErr(http.StatusConflict, "order_paid", "this order is paid and can no longer be cancelled")},
	{order.ErrCancelled, apiErr(http.StatusConflict, "order_cancelled", "this order was cancelled and can no longer be paid")},
	{errOrderPending, apiErr(http.StatusConflict, "order_pending", "your order is still being saved; try again in a moment")},
	{stock.ErrNotStarted, apiErr(http.StatusForbidden, "not_started", "the sale has not started yet")},
	{stock.ErrEnded, apiErr(http.StatusForbidden, "ended", "the sale has ended")},
	{stock.ErrNotAdmitted, apiErr(http.StatusForbidden, "not_admitted",
		"this sale sells through its waiting room: join it, and buy with the token it gives you once admitted")},
	{room.ErrNotWarmed, apiErr(http.StatusServiceUnavailable, "unavailable", "the sale is getting ready; try again")},
	{stock.ErrOverLimit, &Error{Status: http.StatusBadRequest, Code: "invalid_quantity",
		Message: "quantity is above the per-shopper limit", Field: "quantity"}},
	{stock.ErrSoldOut, apiErr(http.StatusGone, "sold_out", "sold out")},
	{stock.ErrIdempotencyConflict, apiErr(http.StatusUnprocessableEntity, "idempotency_key_reused", "this Idempotency-Key was used for a different request")},
	{stock.ErrBusy, apiErr(http.StatusServiceUnavailable, "unavailable", "the sale is changing too fast to re-warm; try again")},
}

// writeError answers c with err. Errors outside the table are logged and shown
// as a bare 503 or 500, never with their text: it may hold SQL or addresses.
func writeError(c *gin.Context, err error) {
	ans := lookup(err)
	// Deliberate answers (a busy sale shedding load) are not failures.
	var deliberate *Error
	if ans.Status >= 500 && !errors.As(err, &deliberate) {
		slog.ErrorContext(c.Request.Context(), "request failed", "path", c.FullPath(), "err", err)
	}
	switch {
	case ans.Status == http.StatusServiceUnavailable, ans.Code == "order_pending":
		c.Header("Retry-After", "1")
	case ans.Status == http.StatusUnauthorized:
		c.Header("WWW-Authenticate", `Bearer realm="seckill"`)
	}
	c.AbortWithStatusJSON(ans.Status, gin.H{"error": ans})
}

func lookup(err error) *Error {
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	var ap *stock.AlreadyPurchasedError
	if errors.As(err, &ap) {
		e := *apiErr(http.StatusConflict, "already_purchased", "you already hold an order for this sale")
		e.OrderID = ap.Existing.OrderID
		return &e
	}
	for _, row := range errorTable {
		if errors.Is(err, row.err) {
			return row.ans
		}
	}
	if isUnavailable(err) {
		return apiErr(http.StatusServiceUnavailable, "unavailable", "the service is busy or a store is unreachable; try again")
	}
	return apiErr(http.StatusInternalServerError, "internal", "internal error")
}
