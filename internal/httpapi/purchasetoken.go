package httpapi

import (
	"github.com/gin-gonic/gin"
)

// PurchaseTokenHeader carries the purchase token on POST .../purchase.
const PurchaseTokenHeader = "X-Purchase-Token"

// admittedKey marks a purchase that carries the waiting room's admission.
const admittedKey = "seckill.admitted"

// requirePurchaseToken refuses a purchase without a valid token for this
// shopper and sale, before anything else runs. An admission token from the
// waiting room counts as one and marks the purchase admitted; the reserve
// script refuses purchases of a room's sale that are not. The purchase token
// is tried first: it is what the storm of a sale without a room carries, so
// that storm pays for one signature check, not two.
func (g *guards) requirePurchaseToken(c *gin.Context) {
	id, err := pathID(c, errItemNotFound)
	if err != nil {
		g.fail(c, err)
		return
	}
	tok, user, now := c.GetHeader(PurchaseTokenHeader), userOf(c), g.now()
	switch {
	case tok != "" && g.purchaseTok.Valid(tok, user, id, now):
	case tok != "" && g.admissionTok.Valid(tok, user, id, now):
		c.Set(admittedKey, true)
	case g.requireToken:
		g.fail(c, errBadPurchaseToken)
	}
}
