package httpapi

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/admission"
	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/order"
	"github.com/seckill/seckill/internal/soldout"
	"github.com/seckill/seckill/internal/stock"
	"github.com/seckill/seckill/internal/token"
)

// IdempotencyKeys says whether a shopper's Idempotency-Key has reserved in
// a sale (stock.Store).
type IdempotencyKeys interface {
	IdempotencyKeyUsed(ctx context.Context, itemID int64, userID, key string) (bool, error)
}

// Purchaser reserves stock, warming a sale Redis does not know yet
// (sale.Service).
type Purchaser interface {
	Reserve(ctx context.Context, r stock.Request) (stock.Reservation, error)
}

// shopAPI is what every shopper's page calls: the sales, purchase tokens
// and the purchase itself.
type shopAPI struct {
	saleView
	snaps      *snapshots
	reserved   *saleSet // sales Redis has answered purchases of: their limits are the script's
	sales      Purchaser
	orders     OrderReader // a replayed order's status, once it is in MySQL
	keys       IdempotencyKeys
	gate       *admission.Gate // nil: every purchase reaches Redis
	soldOut    *soldout.Marks  // nil: no local sold-out marks
	paused     *pausedSales    // sales Redis just said are paused
	tokens     token.Purchase
	newOrderID func() string
}

// listItems answers a page of the sales, with this moment's server_time
// beside it: pages sync their clocks from it. The first page at the
// default limit comes from the shared snapshot.
func (s shopAPI) listItems(c *gin.Context) {
	cur, limit, err := pageQuery(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	var snap snapshot
	if cur == nil && limit == defaultPageLimit {
		snap, err = s.snaps.firstPage(c.Request.Context())
	} else {
		snap, err = s.snaps.page(c.Request.Context(), cur, limit)
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	now, err := s.now().UTC().MarshalJSON()
	if err != nil {
		s.fail(c, err)
		return
	}
	// The snapshot is the page's JSON object: server_time goes in before
	// its closing brace.
	body := make([]byte, 0, len(snap.body)+64)
	body = append(append(append(body, snap.body[:len(snap.body)-1]...), `,"server_time":`...), now...)
	c.Data(http.StatusOK, "application/json; charset=utf-8", append(body, '}'))
}

// getItem is the sale page's once-a-second refresh.
func (s shopAPI) getItem(c *gin.Context) {
	id, err := pathID(c, errItemNotFound)
	if err == nil {
		var snap snapshot
		if snap, err = s.snaps.item(c.Request.Context(), id); err == nil {
			writeSnapshot(c, snap)
			return
		}
	}
	s.fail(c, err)
}

// serverTime is the countdown's clock sync: never cached, since its whole
// point is this moment.
func (s shopAPI) serverTime(c *gin.Context) {
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusOK, gin.H{"server_time": s.now().UTC()})
}

// purchaseToken issues a token from the opening second until the end; a
// sale with a waiting room issues its tokens through the room instead.
func (s shopAPI) purchaseToken(c *gin.Context) {
	it, ok := s.itemFromPath(c)
	if !ok {
		return
	}
	now := s.now()
	switch {
	case it.RoomRate > 0:
		s.fail(c, errWaitingRoom)
		return
	case !now.Before(it.EndsAt):
		s.fail(c, stock.ErrEnded)
		return
	case it.Paused:
		s.fail(c, stock.ErrPaused)
		return
	case now.Before(it.StartsAt):
		s.fail(c, stock.ErrNotStarted)
		return
	}
	tok, exp := s.tokens.Issue(userOf(c), it.ID, now)
	c.JSON(http.StatusOK, gin.H{"token": tok, "expires_at": exp.UTC()})
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

// purchase reserves stock with one script call. A replayed Idempotency-Key
// answers what the first request got, marked Idempotent-Replayed.
func (s shopAPI) purchase(c *gin.Context) {
	c.Set(handledKey, time.Now())
	req, err := s.purchaseRequest(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	if err := s.admit(c.Request.Context(), req); err != nil {
		c.Set(outcomeKey, "gated_"+lookup(err).Code)
		s.fail(c, err)
		return
	}
	res, err := s.sales.Reserve(c.Request.Context(), req)
	s.observe(req, res, err)
	switch {
	case err == nil || stock.Refused(err):
		s.reserved.add(req.ItemID)
	case errors.Is(err, catalog.ErrNotFound):
		s.reserved.remove(req.ItemID) // gone: its purchases are checked before Redis again
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	outcome, status := "reserved", order.StatusPending
	if res.Replayed {
		outcome, status = "replayed", s.replayedStatus(c.Request.Context(), res.OrderID, req.UserID)
		c.Header("Idempotent-Replayed", "true")
	}
	c.Set(outcomeKey, outcome)
	out := purchaseJSON{OrderID: res.OrderID, ItemID: req.ItemID, VariantID: res.VariantID,
		UserID: req.UserID, Quantity: res.Quantity, Status: status}
	out.UnitPrice, out.Amount = order.Amount(res.UnitPriceCents, res.Quantity)
	c.JSON(http.StatusAccepted, out)
}

// replayLookupTimeout bounds the MySQL read of a replayed order's status.
const replayLookupTimeout = 200 * time.Millisecond

// replayedStatus is the status of the order an Idempotency-Key reserved:
// Redis keeps the key after the order is paid or cancelled, and only MySQL
// knows which. An order not in MySQL yet is pending; so is one MySQL cannot
// be asked about now, since a replay must still answer while MySQL is down
// (purchases go on from Redis then).
func (s shopAPI) replayedStatus(ctx context.Context, orderID, userID string) string {
	// A storm of retries must not queue on a slow MySQL: past this, the
	// replay answers as it did before the order could be looked up.
	ctx, cancel := context.WithTimeout(ctx, replayLookupTimeout)
	defer cancel()
	o, err := s.orders.Get(ctx, orderID)
	if err != nil || o.UserID != userID {
		return order.StatusPending
	}
	return o.Status
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

// admit asks the sold-out marks and the admission gate whether req may
// reach Redis: nil, errBusy, or a sold-out answer. The gate sheds a
// stampede on a variant's last units; a waiting room's admitted shoppers are
// no stampede (the room lets through no more of them than the stock left
// can serve), and turning one away would leave their unit held until their
// window passed. A request with an Idempotency-Key that would be told "sold
// out" may be the retry of the purchase that took the last unit, which must
// get that order back: if Redis holds the key, it goes on and is replayed.
// So may one for a sale this server saw paused a moment ago.
func (s shopAPI) admit(ctx context.Context, req stock.Request) error {
	if req.Admitted {
		return nil
	}
	verdict := stock.ErrPaused
	if !s.paused.marked(req.ItemID) {
		verdict = s.verdict(req)
	}
	// A replay is answered by Redis whatever the sale's state: the shopper
	// holds that order.
	if !(errors.Is(verdict, stock.ErrSoldOut) || errors.Is(verdict, stock.ErrPaused)) || req.IdempotencyKey == "" {
		return verdict
	}
	used, err := s.keys.IdempotencyKeyUsed(ctx, req.ItemID, req.UserID, req.IdempotencyKey)
	if err != nil || used {
		return nil // Redis decides: a replay, or its own answer
	}
	return verdict
}

// verdict is what the marks and the gate say of req, before any key.
func (s shopAPI) verdict(req stock.Request) error {
	if available, marked := s.soldOut.VariantSoldOut(req.ItemID, req.VariantID); marked {
		return &stock.SoldOutError{Available: available}
	}
	ok, soldOut := s.gate.Admit(req.ItemID, req.VariantID, req.UserID)
	switch {
	case ok:
		return nil
	case soldOut && (req.VariantID == 0 || s.soldOut.SoldOut(req.ItemID)):
		// A sale of one variant, or all of it: nothing else to offer.
		return stock.ErrSoldOut
	case soldOut:
		// One variant of several is gone, but only Redis can say which
		// others are left, and the contract is a sold-out answer naming
		// them. Its answer marks the variant, and the mark (checked above)
		// answers the storm that follows without Redis.
		return nil
	}
	return errBusy
}

// observe tells the admission gate and the sold-out marks how much stock
// the script reported left, and the gate who got a unit: buyers are bounded
// by the stock, so only the shoppers who did not get one count against its
// cap.
func (s shopAPI) observe(req stock.Request, res stock.Reservation, err error) {
	var so *stock.SoldOutError
	switch {
	case err == nil && !res.Replayed:
		s.gate.Bought(req.ItemID, req.VariantID, req.UserID, res.StockLeft)
		s.soldOut.Saw(req.ItemID, res.SaleLeft, res.Returns)
		if res.StockLeft == 0 {
			s.soldOut.Emptied(req.ItemID, res.VariantID)
		}
	case errors.Is(err, stock.ErrPaused):
		s.paused.mark(req.ItemID)
	case errors.As(err, &so):
		s.gate.Observe(req.ItemID, req.VariantID, so.Left)
		s.soldOut.Saw(req.ItemID, so.SaleLeft, so.Returns)
		s.soldOut.SawVariant(req.ItemID, req.VariantID, so.Left, so.Returns, so.Available)
	}
}
