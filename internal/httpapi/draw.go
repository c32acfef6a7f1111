package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/draw"
	"github.com/seckill/seckill/internal/token"
)

// Draws are the draw sales' entries and published draws (draw.Service).
type Draws interface {
	Enter(ctx context.Context, itemID int64, user string, variantID int64, secret []byte) (draw.Entry, error)
	Look(ctx context.Context, itemID int64, user string) (draw.Entry, error)
	ProofJSON(ctx context.Context, itemID int64) ([]byte, error)
}

type drawAPI struct {
	replier
	draws  Draws
	tokens token.Purchase
}

func (a drawAPI) enter(c *gin.Context) {
	id, err := pathID(c, errItemNotFound)
	if err != nil {
		a.fail(c, err)
		return
	}
	var in struct {
		VariantID   *int64  `json:"variant_id"`
		EntrySecret *string `json:"entry_secret"`
	}
	if err := decode(c, &in, false); err != nil {
		a.fail(c, err)
		return
	}
	var variant int64
	if in.VariantID != nil {
		variant = *in.VariantID
	}
	var secret []byte
	if in.EntrySecret != nil {
		if secret, err = draw.ParseSecret(*in.EntrySecret); err != nil {
			a.fail(c, err)
			return
		}
	}
	e, err := a.draws.Enter(c.Request.Context(), id, userOf(c), variant, secret)
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

// entry shows e with the purchase token a drawn shopper buys with.
func (a drawAPI) entry(c *gin.Context, itemID int64, e draw.Entry) draw.View {
	user := userOf(c)
	return e.View(func(deadline time.Time) string { return a.tokens.IssueUntil(user, itemID, deadline) })
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
