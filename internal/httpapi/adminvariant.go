package httpapi

import (
	"context"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/catalog"
)

// addVariant adds a variant to a sale that has not opened.
func (a adminAPI) addVariant(c *gin.Context) {
	it, ok := a.itemFromPath(c)
	if !ok {
		return
	}
	a.saveVariant(c, it, catalog.Variant{}, http.StatusCreated,
		func(ctx context.Context, p catalog.VariantPatch) (catalog.Item, error) {
			return a.sales.AddVariant(ctx, it.ID, p.Apply(catalog.Variant{}))
		})
}

// updateVariant changes a variant's label, stock_total, price, limit or
// image; stock changes carry the guarantees a sale's stock change has.
func (a adminAPI) updateVariant(c *gin.Context) {
	it, v, ok := a.variantFromPath(c)
	if !ok {
		return
	}
	a.saveVariant(c, it, v, http.StatusOK,
		func(ctx context.Context, p catalog.VariantPatch) (catalog.Item, error) {
			return a.sales.UpdateVariant(ctx, it.ID, v.ID, p)
		})
}

// saveVariant is the body add and update share: v is the variant the patch
// applies to (the zero Variant for a new one, which needs a label and a
// stock_total), checked as it would stand in sale it before save stores it.
func (a adminAPI) saveVariant(c *gin.Context, it catalog.Item, v catalog.Variant, status int,
	save func(context.Context, catalog.VariantPatch) (catalog.Item, error)) {
	var in variantInput
	if err := decode(c, &in, false); err != nil {
		a.fail(c, err)
		return
	}
	if v.ID == 0 && (in.Label == nil || in.StockTotal == nil) {
		a.fail(c, invalid("", "a variant needs a label and a stock_total"))
		return
	}
	p := in.patch()
	if err := it.CheckVariant(p.Apply(v), v.ID); err != nil {
		a.fail(c, invalidField("", err))
		return
	}
	it, err := save(c.Request.Context(), p)
	if err != nil {
		a.fail(c, err)
		return
	}
	a.writeItem(c, status, it)
}

// deleteVariant removes a variant from a sale that has not opened.
func (a adminAPI) deleteVariant(c *gin.Context) {
	it, v, ok := a.variantFromPath(c)
	if !ok {
		return
	}
	it, err := a.sales.DeleteVariant(c.Request.Context(), it.ID, v.ID)
	if err != nil {
		a.fail(c, err)
		return
	}
	a.writeItem(c, http.StatusOK, it)
}

// variantFromPath loads the sale :id and its variant :vid; when it cannot,
// it has answered already and reports false.
func (a adminAPI) variantFromPath(c *gin.Context) (catalog.Item, catalog.Variant, bool) {
	it, ok := a.itemFromPath(c)
	if !ok {
		return catalog.Item{}, catalog.Variant{}, false
	}
	vid, err := strconv.ParseInt(c.Param("vid"), 10, 64)
	v, found := it.Variant(vid)
	if err != nil || !found {
		a.fail(c, errVariantNotFound)
		return catalog.Item{}, catalog.Variant{}, false
	}
	return it, v, true
}
