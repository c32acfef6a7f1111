package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/draw"
)

// Draws are the draw sales' entries and published draws (draw.Service).
type Draws interface {
	Enter(ctx context.Context, itemID int64, user string, variantID int64) (draw.Entry, error)
	Look(ctx context.Context, itemID int64, user string) (draw.Entry, error)
	ProofJSON(ctx context.Context, itemID int64) ([]byte, error)
}

type drawAPI struct {
	replier
	draws  Draws
	tokens purchaseTokens
}

type entryJSON struct {
	EntryID   string    `json:"entry_id"`
	VariantID int64     `json:"variant_id"`
	EnteredAt time.Time `json:"entered_at"`
	// Null before the draw.
	Result   *string `json:"result"`
	Position *int    `json:"position"`
	// A drawn shopper's window to buy: its end, and the purchase token
	// that lasts until then.
	PurchaseDeadline *time.Time `json:"purchase_deadline"`
	PurchaseToken    *string    `json:"purchase_token"`
	OrderID          *string    `json:"order_id"`
}

func (a drawAPI) enter(c *gin.Context) {
	id, err := pathID(c, errItemNotFound)
	if err != nil {
		a.fail(c, err)
		return
	}
	var in struct {
		VariantID *int64 `json:"variant_id"`
	}
	if err := decode(c, &in, false); err != nil {
		a.fail(c, err)
		return
	}
	var variant int64
	if in.VariantID != nil {
		variant = *in.VariantID
	}
	e, err := a.draws.Enter(c.Request.Context(), id, userOf(c), variant)
	if err != nil {
		a.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, a.entry(c, id, e))
}

func (a drawAPI) look(c *gin.Context) {
	id, err := pathID(c, errItemNotFound)
	if err != nil {
		a.fail(c, err)
		return
	}
	e, err := a.draws.Look(c.Request.Context(), id, userOf(c))
	if err != nil {
		a.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, a.entry(c, id, e))
}

func (a drawAPI) entry(c *gin.Context, itemID int64, e draw.Entry) entryJSON {
	out := entryJSON{EntryID: e.EntryID, VariantID: e.VariantID, EnteredAt: e.EnteredAt, Position: e.Position,
		PurchaseDeadline: e.Deadline, OrderID: e.OrderID}
	if e.Result != "" {
		out.Result = &e.Result
	}
	if e.Deadline != nil {
		tok := a.tokens.issueUntil(userOf(c), itemID, *e.Deadline)
		out.PurchaseToken = &tok
	}
	return out
}

func (a drawAPI) proof(c *gin.Context) {
	id, err := pathID(c, errItemNotFound)
	if err != nil {
		a.fail(c, err)
		return
	}
	p, err := a.draws.ProofJSON(c.Request.Context(), id)
	if err != nil {
		a.fail(c, err)
		return
	}
	c.Data(http.StatusOK, "application/json; charset=utf-8", p)
}
