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

type entryJSON struct {
	EntryID   string    `json:"entry_id"`
	VariantID int64     `json:"variant_id"`
	EnteredAt time.Time `json:"entered_at"`
	// What the shopper keeps to check their entry in the published draw:
	// entry_id = hex(SHA-256(salt || entry_secret || user_id)), and the
	// commitment (seed_sha256) as it was before the close. entry_secret
	// is null for an entry made before secrets.
	EntrySecret *string `json:"entry_secret"`
	Commitment  string  `json:"commitment"`
	Salt        string  `json:"salt"`
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

func (a drawAPI) entry(c *gin.Context, itemID int64, e draw.Entry) entryJSON {
	out := entryJSON{EntryID: e.EntryID, VariantID: e.VariantID, EnteredAt: e.EnteredAt, Commitment: e.Commitment, Salt: e.Salt,
		Position: e.Position, PurchaseDeadline: e.Deadline, OrderID: e.OrderID}
	if e.EntrySecret != "" {
		out.EntrySecret = &e.EntrySecret
	}
	if e.Result != "" {
		out.Result = &e.Result
	}
	if e.Deadline != nil {
		tok := a.tokens.IssueUntil(userOf(c), itemID, *e.Deadline)
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
