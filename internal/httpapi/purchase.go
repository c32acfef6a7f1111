package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/order"
	"github.com/seckill/seckill/internal/stock"
)

type purchaseJSON struct {
	OrderID  string `json:"order_id"`
	ItemID   int64  `json:"item_id"`
	UserID   string `json:"user_id"`
	Quantity int    `json:"quantity"`
	Status   string `json:"status"`
}

// purchase reserves stock with one script call. A replayed Idempotency-Key
// answers what the first request got, marked Idempotent-Replayed.
func (s *Server) purchase(c *gin.Context) {
	start := time.Now()
	req, err := s.purchaseRequest(c)
	if err != nil {
		s.Metrics.purchase(lookup(err).Code, start)
		writeError(c, err)
		return
	}
	if err := s.gate(req); err != nil {
		s.Metrics.purchase("gated_"+lookup(err).Code, start)
		writeError(c, err)
		return
	}
	res, err := s.Sales.Reserve(c.Request.Context(), req)
	s.observe(req.ItemID, res, err)
	if err != nil {
		s.Metrics.purchase(lookup(err).Code, start)
		writeError(c, err)
		return
	}
	outcome := "reserved"
	if res.Replayed {
		outcome = "replayed"
		c.Header("Idempotent-Replayed", "true")
	}
	s.Metrics.purchase(outcome, start)
	c.JSON(http.StatusAccepted, purchaseJSON{OrderID: res.OrderID, ItemID: req.ItemID, UserID: req.UserID,
		Quantity: res.Quantity, Status: order.StatusPending})
}

func (s *Server) purchaseRequest(c *gin.Context) (stock.Request, error) {
	id, err := pathID(c, errItemNotFound)
	if err != nil {
		return stock.Request{}, err
	}
	qty, err := purchaseQuantity(c)
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
	return stock.Request{ItemID: id, UserID: userOf(c), Quantity: qty, OrderID: s.NewOrderID(),
		IdempotencyKey: key, Now: s.Now(), Admitted: c.GetBool(admittedKey)}, nil
}

// gate asks the admission gate whether req may reach Redis: nil, errBusy, or
// stock.ErrSoldOut. The gate sheds a stampede on a sale's last units; a
// waiting room's admitted shoppers are no stampede (the room lets through no
// more of them than the stock left can serve), and turning one away would
// leave their unit held until their window passed.
func (s *Server) gate(req stock.Request) error {
	if req.Admitted {
		return nil
	}
	ok, soldOut := s.Gate.Admit(req.ItemID, req.UserID)
	switch {
	case ok:
		return nil
	case soldOut:
		return stock.ErrSoldOut
	}
	return errBusy
}

// purchaseQuantity reads the body's quantity, 1 if the body is empty.
func purchaseQuantity(c *gin.Context) (int, error) {
	raw, err := readBody(c)
	if err != nil {
		return 0, err
	}
	if qty, ok := plainQuantity(raw); ok {
		return qty, nil
	}
	var body struct {
		Quantity *int `json:"quantity"`
	}
	if err := decodeBody(raw, &body, true); err != nil {
		if ae, ok := err.(*Error); ok && ae.Field == "quantity" && ae.wrongType {
			return 0, errInvalidQuantity
		}
		return 0, err
	}
	if body.Quantity == nil {
		return 1, nil
	}
	return *body.Quantity, nil
}

// plainQuantity reads the body every shop page sends, {"quantity":N} with
// N of 1 to 4 digits and no spaces, without the strict JSON decoder; any
// other body (spaces, other keys, anything odd) goes to the decoder.
func plainQuantity(b []byte) (int, bool) {
	const head = `{"quantity":`
	if len(b) < len(head)+2 || len(b) > len(head)+5 || string(b[:len(head)]) != head || b[len(b)-1] != '}' {
		return 0, false
	}
	digits := b[len(head) : len(b)-1]
	if digits[0] == '0' {
		return 0, false
	}
	n := 0
	for _, d := range digits {
		if d < '0' || d > '9' {
			return 0, false
		}
		n = n*10 + int(d-'0')
	}
	return n, true
}

var errBusy = apiErr(http.StatusServiceUnavailable, "unavailable",
	"many shoppers are trying for what is left; try again in a moment")

// observe tells the admission gate and the sold-out marks how much stock
// the script reported left.
func (s *Server) observe(itemID int64, res stock.Reservation, err error) {
	var so *stock.SoldOutError
	switch {
	case err == nil && !res.Replayed:
		s.Gate.Observe(itemID, res.StockLeft)
		s.SoldOut.Saw(itemID, res.StockLeft, res.Returns)
	case errors.As(err, &so):
		s.Gate.Observe(itemID, so.Left)
		s.SoldOut.Saw(itemID, so.Left, so.Returns)
	}
}

// soldOutMark answers a purchase of a sale this server has seen sell out
// without asking Redis, before sign-in, the rate limits and the purchase
// token are even checked: the answer costs nothing and tells nothing the
// sale page does not (its stock is public). A request with
// an Idempotency-Key goes on, since it may be the retry of the purchase
// that took the last unit and must get that order back.
func (s *Server) soldOutMark(c *gin.Context) {
	if s.SoldOut == nil || c.GetHeader("Idempotency-Key") != "" {
		return
	}
	id, err := pathID(c, errItemNotFound)
	if err != nil || !s.SoldOut.SoldOut(id) {
		return
	}
	s.Metrics.markedSoldOut.Inc()
	c.Data(http.StatusGone, jsonContentType, soldOutBody)
	c.Abort()
}

const jsonContentType = "application/json; charset=utf-8"

// soldOutBody is the sold-out answer, encoded once: the storm after a
// sell-out is answered thousands of times a second.
var soldOutBody = func() []byte {
	b, err := json.Marshal(gin.H{"error": lookup(stock.ErrSoldOut)})
	if err != nil {
		panic(err)
	}
	return b
}()

var errInvalidQuantity = &Error{Status: http.StatusBadRequest, Code: "invalid_quantity",
	Message: "quantity must be a whole number from 1 to the per-shopper limit", Field: "quantity"}

func validIdempotencyKey(k string) bool {
	if len(k) > 128 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return false
		}
	}
	return true
}
