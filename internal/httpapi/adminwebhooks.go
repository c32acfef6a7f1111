package httpapi

import (
	"context"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/webhook"
)

// WebhookAdmin is the webhook outbox as an admin sees it (webhook.Admin).
type WebhookAdmin interface {
	List(ctx context.Context, state string, before int64, limit int) (webhook.Listing, error)
	Get(ctx context.Context, seq int64) (webhook.DeliveryView, error)
	Resend(ctx context.Context, seq int64) (webhook.DeliveryView, error)
}

// webhookAPI lists the outbox's deliveries and re-sends failed ones.
type webhookAPI struct {
	replier
	admin WebhookAdmin
}

// list answers a page of deliveries, newest first, with the outbox's
// counts and the endpoints configured.
func (w webhookAPI) list(c *gin.Context) {
	limit, cursor, state, err := webhooksQuery(c)
	if err != nil {
		w.fail(c, err)
		return
	}
	out, err := w.admin.List(c.Request.Context(), state, cursor, limit)
	if err != nil {
		w.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, out)
}

func webhooksQuery(c *gin.Context) (limit int, cursor int64, state string, err error) {
	if limit, cursor, err = seqPage(c); err != nil {
		return 0, 0, "", err
	}
	switch state = c.Query("state"); state {
	case "", webhook.StatePending, webhook.StateDelivered, webhook.StateFailed:
		return limit, cursor, state, nil
	}
	return 0, 0, "", errInvalidState
}

// get answers one delivery with the event's body as it was signed and sent.
func (w webhookAPI) get(c *gin.Context) {
	w.answer(c, w.admin.Get)
}

// resend puts a failed delivery back on its way with another full period
// of retries; webhook.Admin records who did so in the audit log.
func (w webhookAPI) resend(c *gin.Context) {
	w.answer(c, w.admin.Resend)
}

// answer runs op on the delivery named by :seq and answers with it.
func (w webhookAPI) answer(c *gin.Context, op func(ctx context.Context, seq int64) (webhook.DeliveryView, error)) {
	seq, err := deliverySeq(c)
	if err == nil {
		var d webhook.DeliveryView
		if d, err = op(c.Request.Context(), seq); err == nil {
			c.JSON(http.StatusOK, d)
			return
		}
	}
	w.fail(c, err)
}

func deliverySeq(c *gin.Context) (int64, error) {
	seq, err := strconv.ParseInt(c.Param("seq"), 10, 64)
	if err != nil || seq <= 0 {
		return 0, errDeliveryNotFound
	}
	return seq, nil
}
