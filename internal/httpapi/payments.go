package httpapi

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/order"
	"github.com/seckill/seckill/internal/webhook"
)

// PaymentSettler applies the payment provider's callbacks (sale.Service).
type PaymentSettler interface {
	SettlePayment(ctx context.Context, p order.Payment) (order.Settlement, error)
}

// paymentAPI is the payment provider's side: its callbacks say which
// orders are paid. The provider has no session and no Origin; its
// signature, over the raw body under SECKILL_PAYMENT_SECRET, is its
// credential.
type paymentAPI struct {
	replier
	payments PaymentSettler
	secret   []byte // empty: payments are not configured, every callback is refused
	// wall dates the signature check. The provider signs with the wall
	// clock; the sale clock (Deps.Now) is moved in demos and tests.
	wall func() time.Time
}

// maxCallbackBody caps a callback's body: a payment is four short fields.
const maxCallbackBody = 16 << 10

// callback settles one payment: signature first, over the raw bytes as
// they came, then the body, then the order. Each answer says what was
// decided: outcome and the order as GET /orders/{id} shows it.
func (a paymentAPI) callback(c *gin.Context) {
	if len(a.secret) == 0 {
		a.fail(c, errPaymentsOff)
		return
	}
	raw, err := readBody(c)
	if err != nil {
		a.fail(c, err)
		return
	}
	if err := a.verify(c.GetHeader(webhook.SignatureHeader), raw); err != nil {
		a.fail(c, err)
		return
	}
	p, err := paymentOf(raw)
	if err != nil {
		a.fail(c, err)
		return
	}
	st, err := a.payments.SettlePayment(c.Request.Context(), p)
	if err != nil {
		a.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"outcome": st.Outcome, "order": toJSON(st.Order)})
}

// verify checks the callback's signature header against its raw body.
func (a paymentAPI) verify(header string, raw []byte) error {
	if header == "" {
		return errSignatureMissing
	}
	err := webhook.Verify(a.secret, header, raw, a.wall())
	switch {
	case errors.Is(err, webhook.ErrStale):
		return errSignatureStale
	case err != nil:
		return errSignatureBad
	}
	return nil
}

// paymentOf reads a callback's body strictly: every field is required.
func paymentOf(raw []byte) (order.Payment, error) {
	var body struct {
		OrderID     *string `json:"order_id"`
		Status      *string `json:"status"`
		AmountCents *int64  `json:"amount_cents"`
		ProviderRef *string `json:"provider_ref"`
	}
	if err := decodeBody(raw, &body, false); err != nil {
		return order.Payment{}, err
	}
	for _, f := range []struct {
		name    string
		missing bool
	}{{"order_id", body.OrderID == nil}, {"status", body.Status == nil},
		{"amount_cents", body.AmountCents == nil}, {"provider_ref", body.ProviderRef == nil}} {
		if f.missing {
			return order.Payment{}, invalid(f.name, f.name+" is required")
		}
	}
	p := order.Payment{OrderID: *body.OrderID, Status: *body.Status, AmountCents: *body.AmountCents, ProviderRef: *body.ProviderRef}
	var pe *order.PaymentError
	if err := p.Check(); errors.As(err, &pe) {
		return p, invalidPayment(pe.Field, pe.Rule)
	}
	return p, nil
}
