// Package httpapi is the HTTP layer: Gin routes, authentication, JSON in and
// out, and the one table that turns domain errors into HTTP answers. The
// handlers come in groups by area (shop, orders, room, admin, sessions,
// ops), each a struct of the few small interfaces it uses; router.go builds
// them and shows every route with its guards.
package httpapi

import (
	"errors"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"syscall"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/database"
	"github.com/seckill/seckill/internal/draw"
	"github.com/seckill/seckill/internal/drawkey"
	"github.com/seckill/seckill/internal/front"
	"github.com/seckill/seckill/internal/order"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/room"
	"github.com/seckill/seckill/internal/sale"
	"github.com/seckill/seckill/internal/stock"
	"github.com/seckill/seckill/internal/webhook"
)

// Error is an answer the API gives on purpose: a code shoppers' programs can
// switch on, a message people can read, and the field at fault if any.
type Error struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
	OrderID string `json:"order_id,omitempty"` // already_purchased: the order held
	// AvailableVariants are, in a sold_out answer, the sale's variants that
	// still have stock, so the page can offer them.
	AvailableVariants *[]int64 `json:"available_variants,omitempty"`
	// Challenge and Difficulty are, in a proof_of_work_required answer, a
	// fresh challenge for this shopper and sale and the bits it asks, so a
	// client solves it and retries without another round trip.
	Challenge  string `json:"challenge,omitempty"`
	Difficulty *int   `json:"difficulty,omitempty"`
	wrongType  bool   // a JSON value of the wrong type, e.g. "2" for a number
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

func apiErr(status int, code, msg string) *Error {
	return &Error{Status: status, Code: code, Message: msg}
}

// invalid is the answer to a request that names a field wrongly; the
// message says what the field must be.
func invalid(field, msg string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "invalid_request", Message: msg, Field: field}
}

// Every answer the API gives on purpose, but for invalid(...) and
// already_purchased (which carries the order held): api/openapi.yaml lists
// their codes, and a test keeps the two in step.
var (
	errInternal    = apiErr(http.StatusInternalServerError, "internal", "internal error")
	errUnavailable = apiErr(http.StatusServiceUnavailable, "unavailable", "the service is busy or a store is unreachable; try again")
	errWarming     = apiErr(http.StatusServiceUnavailable, "unavailable", "the sale is getting ready; try again")
	errRewarming   = apiErr(http.StatusServiceUnavailable, "unavailable", "the sale is changing too fast to re-warm; try again")
	errRedisBusy   = apiErr(http.StatusServiceUnavailable, "unavailable", "the stock store is busy; try again in a moment")
	errBusy        = apiErr(http.StatusServiceUnavailable, "unavailable", "many shoppers are trying for what is left; try again in a moment")
	errReplication = apiErr(http.StatusServiceUnavailable, "replication_timeout",
		"your purchase could not be made safe against a store failure in time; retry with the same Idempotency-Key to find out whether you hold the order")
	errNoRoute     = apiErr(http.StatusNotFound, "not_found", "no such route")
	errNoFile      = apiErr(http.StatusNotFound, "not_found", "no such file")
	errNoDemoLogin = apiErr(http.StatusNotFound, "not_found", "demo login is turned off")
	errMethod      = apiErr(http.StatusMethodNotAllowed, "method_not_allowed", "method not allowed on this route")
	errTooLarge    = apiErr(http.StatusRequestEntityTooLarge, "payload_too_large", "the request body is too large")
	errBodyTimeout = apiErr(http.StatusRequestTimeout, "request_timeout", "the request body did not arrive in time")

	errSignIn         = apiErr(http.StatusUnauthorized, "unauthenticated", "sign in first: send Authorization: Bearer <token>")
	errSessionExpired = apiErr(http.StatusUnauthorized, "unauthenticated", "the token is invalid or expired; sign in again")
	errAdminOnly      = apiErr(http.StatusUnauthorized, "unauthenticated", "admin token required")
	errWrongAdmin     = apiErr(http.StatusUnauthorized, "unauthenticated", "that admin token is not right")
	errCSRF           = apiErr(http.StatusForbidden, "csrf_rejected", "this request must come from the shop's own pages")
	errRateLimited    = apiErr(http.StatusTooManyRequests, "rate_limited", "too many requests; slow down and retry after the time in Retry-After")
	errTooManyStreams = apiErr(http.StatusTooManyRequests, "too_many_streams",
		"too many event streams are open from this address; close one, or retry after the time in Retry-After")

	errItemNotFound    = apiErr(http.StatusNotFound, "item_not_found", "no such sale")
	errStockConflict   = apiErr(http.StatusConflict, "stock_conflict", "stock_total cannot go below what is already sold")
	errNotStarted      = apiErr(http.StatusForbidden, "not_started", "the sale has not started yet")
	errEnded           = apiErr(http.StatusForbidden, "ended", "the sale has ended")
	errPaused          = apiErr(http.StatusLocked, "sale_paused", "the sale is paused for a moment; your place is kept")
	errPauseEnded      = apiErr(http.StatusConflict, "sale_ended", "the sale has ended; there is nothing to pause or resume")
	errSoldOut         = soldOutErr(nil)
	errVariantNotFound = apiErr(http.StatusNotFound, "variant_not_found", "this sale has no such variant")
	errVariantRequired = &Error{Status: http.StatusBadRequest, Code: "variant_required",
		Message: "this sale has several variants: name one with variant_id", Field: "variant_id"}
	errLabelTaken          = apiErr(http.StatusConflict, "label_taken", "another variant of this sale has that label")
	errSaleOpened          = apiErr(http.StatusConflict, "sale_opened", "variants are added and removed only before the sale opens, and one that orders hold stays")
	errSaleRetired         = apiErr(http.StatusConflict, "sale_retired", "the sale is retired: it is kept as it ended and is never warmed or changed again")
	errVariantCount        = apiErr(http.StatusConflict, "variant_count", "a sale has 1 to 64 variants")
	errSaleStockOfVariants = &Error{Status: http.StatusBadRequest, Code: "invalid_request", Field: "stock_total",
		Message: "stock_total of a sale with several variants is the sum of theirs: change a variant's"}
	errBadPurchaseToken = apiErr(http.StatusForbidden, "invalid_purchase_token",
		"the purchase token is missing, forged or expired; fetch a new one from /purchase-token")
	errInvalidQuantity = &Error{Status: http.StatusBadRequest, Code: "invalid_quantity",
		Message: "quantity must be a whole number from 1 to the per-shopper limit", Field: "quantity"}
	errOverLimit = &Error{Status: http.StatusBadRequest, Code: "invalid_quantity",
		Message: "quantity is above the per-shopper limit", Field: "quantity"}
	// Every paged list (sales, audit log) answers a bad cursor with this
	// and a bad page size with invalidLimit.
	errInvalidCursor = &Error{Status: http.StatusBadRequest, Code: "invalid_cursor",
		Message: "cursor must be a next_cursor this list returned", Field: "cursor"}
	errIdempotencyReused = apiErr(http.StatusUnprocessableEntity, "idempotency_key_reused", "this Idempotency-Key was used for a different request")
	errAlreadyPurchased  = apiErr(http.StatusConflict, "already_purchased", "you already hold an order for this sale")

	errWaitingRoom = apiErr(http.StatusForbidden, "waiting_room",
		"this sale sells through its waiting room: join it, and it gives you a token once you are admitted")
	errNotAdmitted = apiErr(http.StatusForbidden, "not_admitted",
		"this sale sells through its waiting room: join it, and buy with the token it gives you once admitted")
	errNoOffer = apiErr(http.StatusForbidden, "not_drawn",
		"this sale is a draw: only a shopper drawn for this variant may buy it, within their purchase window")
	errDrawnUnits     = apiErr(http.StatusConflict, "stock_conflict", "this draw is drawn: its units are offered to its winners, so stock can be added, not cut")
	errNotADraw       = apiErr(http.StatusConflict, "not_a_draw", "this sale sells first come, first served: it takes no entries")
	errEntriesNotOpen = apiErr(http.StatusConflict, "entries_not_open", "entries to this draw are not open yet")
	errEntriesClosed  = apiErr(http.StatusConflict, "entries_closed", "entries to this draw are closed")
	errNoEntry        = apiErr(http.StatusNotFound, "entry_not_found", "you have not entered this draw")
	errEntryIDTaken   = apiErr(http.StatusConflict, "entry_id_taken", "this entry secret gives an entry id another entry holds: choose another secret")
	errEntrySecret    = &Error{Status: http.StatusBadRequest, Code: "invalid_entry_secret", Field: "entry_secret",
		Message: "entry_secret must be 32 random bytes in lowercase hex (64 digits), or left out"}
	errNoWaitingRoom = apiErr(http.StatusConflict, "no_waiting_room",
		"this sale has no waiting room: buy with a purchase token from /purchase-token")
	// errPowRequired is the refusal of a missing or bad proof of work; the
	// answer is a copy carrying a fresh challenge (powRequired).
	errPowRequired = apiErr(http.StatusForbidden, "proof_of_work_required", "this action needs a proof of work")

	errOrderNotFound  = apiErr(http.StatusNotFound, "order_not_found", "no such order")
	errOrderPaid      = apiErr(http.StatusConflict, "order_paid", "this order is paid and can no longer be cancelled")
	errOrderCancelled = apiErr(http.StatusConflict, "order_cancelled", "this order was cancelled and can no longer be paid")
	errOrderPending   = apiErr(http.StatusConflict, "order_pending", "your order is still being saved; try again in a moment")
	// errPaymentPending is order_pending for the payment provider: a 5xx
	// with Retry-After, which providers retry, where some take any 4xx
	// as final.
	errPaymentPending = apiErr(http.StatusServiceUnavailable, "order_pending",
		"the order is taken and still being saved; retry the callback later")

	errDeliveryNotFound  = apiErr(http.StatusNotFound, "delivery_not_found", "no such webhook delivery")
	errDeliveryNotFailed = apiErr(http.StatusConflict, "delivery_not_failed",
		"only a failed delivery is re-sent: this one is still on its way or was delivered")
	errInvalidState = &Error{Status: http.StatusBadRequest, Code: "invalid_state", Field: "state",
		Message: "state must be pending, delivered or failed"}
	errDemoPaymentsOff  = apiErr(http.StatusForbidden, "demo_payments_off", "orders are paid through the payment provider, not here")
	errPaymentsOff      = apiErr(http.StatusServiceUnavailable, "payments_not_configured", "payment callbacks are not configured on this server (SECKILL_PAYMENT_SECRET)")
	errDrawKeyMissing   = apiErr(http.StatusServiceUnavailable, "draw_key_missing", "draw sales need a draw key on the server (SECKILL_DRAW_KEY); nothing was created")
	errSignatureMissing = apiErr(http.StatusUnauthorized, "invalid_signature", "the X-Seckill-Signature header is missing")
	errSignatureBad     = apiErr(http.StatusUnauthorized, "invalid_signature",
		"the X-Seckill-Signature header is malformed or does not sign this body under the payment secret")
	errSignatureStale = apiErr(http.StatusUnauthorized, "invalid_signature",
		"the signature's timestamp is more than 5 minutes away from the server's clock: too old, or ahead")
	errAmountMismatch = apiErr(http.StatusUnprocessableEntity, "amount_mismatch", "the amount is not what the order costs; the payment is recorded and refused, and the shop is asked to refund it")
	errRefConflict    = apiErr(http.StatusConflict, "provider_ref_conflict", "this provider_ref was already used for another order's payment")
)

// invalidPayment is the answer to a callback whose field holds a value no
// payment has.
func invalidPayment(field, msg string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "invalid_payment", Message: msg, Field: field}
}

// invalidLimit is the invalid_limit answer of a paged list whose pages
// hold 1 to most entries.
func invalidLimit(most int) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "invalid_limit", Field: "limit",
		Message: "limit must be a whole number from 1 to " + strconv.Itoa(most)}
}

// soldOutErr is the sold_out answer naming the variants that still have
// stock (none when the whole sale is gone).
func soldOutErr(available []int64) *Error {
	if available == nil {
		available = []int64{}
	}
	return &Error{Status: http.StatusGone, Code: "sold_out", Message: "sold out", AvailableVariants: &available}
}

// errorTable maps domain errors to answers. It is the only place that does.
var errorTable = []struct {
	err error
	ans *Error
}{
	{catalog.ErrNotFound, errItemNotFound},
	{catalog.ErrStockConflict, errStockConflict},
	{catalog.ErrVariantNotFound, errVariantNotFound},
	{catalog.ErrLabelTaken, errLabelTaken},
	{catalog.ErrSaleOpened, errSaleOpened},
	{catalog.ErrVariantCount, errVariantCount},
	{catalog.ErrSaleStockOfVariants, errSaleStockOfVariants},
	{catalog.ErrRetired, errSaleRetired},
	{stock.ErrVariantNotFound, errVariantNotFound},
	{stock.ErrVariantRequired, errVariantRequired},
	{stock.ErrStockConflict, errStockConflict},
	{order.ErrNotFound, errOrderNotFound},
	{order.ErrPaid, errOrderPaid},
	{order.ErrCancelled, errOrderCancelled},
	{webhook.ErrNotFound, errDeliveryNotFound},
	{webhook.ErrNotFailed, errDeliveryNotFailed},
	{order.ErrAmountMismatch, errAmountMismatch},
	{order.ErrRefConflict, errRefConflict},
	{stock.ErrNotStarted, errNotStarted},
	{stock.ErrEnded, errEnded},
	{stock.ErrPaused, errPaused},
	{sale.ErrEnded, errPauseEnded},
	{stock.ErrNotAdmitted, errNotAdmitted},
	{stock.ErrNoOffer, errNoOffer},
	{catalog.ErrDrawnUnits, errDrawnUnits},
	{draw.ErrNotADraw, errNotADraw},
	{draw.ErrVariantRequired, errVariantRequired},
	{draw.ErrEntriesNotOpen, errEntriesNotOpen},
	{draw.ErrEntriesClosed, errEntriesClosed},
	{draw.ErrNoEntry, errNoEntry},
	{draw.ErrInvalidEntrySecret, errEntrySecret},
	{draw.ErrEntryIDTaken, errEntryIDTaken},
	{room.ErrNotWarmed, errWarming},
	{stock.ErrOverLimit, errOverLimit},
	{stock.ErrSoldOut, errSoldOut},
	{front.ErrBusy, errBusy},
	{stock.ErrIdempotencyConflict, errIdempotencyReused},
	{stock.ErrBusy, errRewarming},
	{stock.ErrRateLimited, errRateLimited},
	{stock.ErrInvalidQuantity, errInvalidQuantity},
	{drawkey.ErrNoKey, errDrawKeyMissing},
	{stock.ErrReplicationTimeout, errReplication},
	{stock.ErrQueueTooLong, errPaymentPending},
	{sale.ErrPaymentPending, errPaymentPending},
}

// lookup finds the answer to err: its own if it is one, its row of the
// table, 503 for a store out of reach, else a bare 500.
func lookup(err error) *Error {
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	var ap *stock.AlreadyPurchasedError
	if errors.As(err, &ap) {
		e := *errAlreadyPurchased
		e.OrderID = ap.Existing.OrderID
		return &e
	}
	var so *stock.SoldOutError
	if errors.As(err, &so) {
		return soldOutErr(so.Available)
	}
	var nr *sale.NotRetirableError
	if errors.As(err, &nr) {
		return apiErr(http.StatusConflict, "sale_not_retirable", "the sale cannot be retired yet: "+nr.Reason)
	}
	for _, row := range errorTable {
		if errors.Is(err, row.err) {
			return row.ans
		}
	}
	if redisconn.ScriptBusy(err) {
		return errRedisBusy
	}
	// A store that cannot be reached is 503: a shopper should retry.
	if redisconn.Unavailable(err) || database.Unavailable(err) {
		return errUnavailable
	}
	return errInternal
}

// errorCodeKey is where a request's error code is kept for the purchase
// metric (see Metrics.purchaseOutcome).
const errorCodeKey = "seckill.error_code"

// replier writes the error answers of a group of handlers, logging through
// the server's logger.
type replier struct{ log *slog.Logger }

// fail answers c with err. Errors outside the table are logged and shown as
// a bare 503 or 500, never with their text: it may hold SQL or addresses.
func (r replier) fail(c *gin.Context, err error) {
	ans := lookup(err)
	// Deliberate answers (a busy sale shedding load) are not failures. A
	// Redis stuck in a script refuses every request at once: the script
	// hook counts and logs that once a second (metrics.Set.RedisHook). A
	// paid order still being saved is the provider's to retry.
	var deliberate *Error
	if ans.Status >= 500 && !errors.As(err, &deliberate) && ans != errRedisBusy && ans != errReplication && ans != errBusy &&
		!errors.Is(err, sale.ErrPaymentPending) {
		r.log.ErrorContext(c.Request.Context(), "request failed", "path", c.FullPath(),
			"request_id", c.Writer.Header().Get("X-Request-Id"), "err", err)
	}
	switch {
	case ans.Code == errUnavailable.Code, ans == errOrderPending, ans == errReplication:
		c.Header("Retry-After", "1")
	case ans == errPaymentPending:
		c.Header("Retry-After", "10")
	case ans.Status == http.StatusUnauthorized && ans.Code != errSignatureBad.Code: // a signature is no bearer token
		c.Header("WWW-Authenticate", `Bearer realm="seckill"`)
	}
	var limited *stock.RateLimitedError
	if errors.As(err, &limited) {
		c.Header("Retry-After", retryAfter(limited.Wait))
	}
	c.Set(errorCodeKey, ans.Code)
	c.AbortWithStatusJSON(ans.Status, gin.H{"error": ans})
}

// recovery answers a request whose handler panicked (recovered), but for
// a panic with http.ErrAbortHandler or a write to a client that is gone:
// those go on to net/http as http.ErrAbortHandler, which drops the
// connection without ending the response, so a download cut short looks
// cut short. gin's own recovery would end the response cleanly instead.
func (r replier) recovery(c *gin.Context) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		if err, ok := p.(error); ok && (errors.Is(err, http.ErrAbortHandler) ||
			errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)) {
			panic(http.ErrAbortHandler)
		}
		r.recovered(c, p)
	}()
	c.Next()
}

// recovered answers a request whose handler panicked, after logging the
// panic and its stack through the server's logger (gin's own recovery
// would print them to stderr, apart from the request's id).
func (r replier) recovered(c *gin.Context, panicked any) {
	r.log.ErrorContext(c.Request.Context(), "handler panicked", "path", c.FullPath(),
		"request_id", c.Writer.Header().Get("X-Request-Id"), "panic", panicked, "stack", string(debug.Stack()))
	r.fail(c, errInternal)
}
