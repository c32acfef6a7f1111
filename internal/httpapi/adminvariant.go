package httpapi

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/catalog"
)

// addVariant adds a variant to a sale that has not opened.
func (a adminAPI) addVariant(c *gin.Context) {
	it, ok := a.itemFromPath(c)
	if !ok {
		return
	}
	var in variantInput
	if err := decode(c, &in, false); err != nil {
		a.fail(c, err)
		return
	}
	if in.Label == nil || in.StockTotal == nil {
		a.fail(c, invalid("", "a variant needs a label and a stock_total"))
		return
	}
	v := in.patch().Apply(catalog.Variant{})
	if err := a.checkVariant(it, v, 0); err != nil {
		a.fail(c, err)
		return
	}
	it, err := a.sales.AddVariant(c.Request.Context(), it.ID, v)
	if err != nil {
		a.fail(c, err)
		return
	}
	a.writeItem(c, http.StatusCreated, it)
}

// updateVariant changes a variant's label, stock_total, price, limit or
// image; stock changes carry the guarantees a sale's stock change has.
func (a adminAPI) updateVariant(c *gin.Context) {
	it, v, ok := a.variantFromPath(c)
	if !ok {
		return
	}
	var in variantInput
	if err := decode(c, &in, false); err != nil {
		a.fail(c, err)
		return
	}
	p := in.patch()
	if err := a.checkVariant(it, p.Apply(v), v.ID); err != nil {
		a.fail(c, err)
		return
	}
	it, err := a.sales.UpdateVariant(c.Request.Context(), it.ID, v.ID, p)
	if err != nil {
		a.fail(c, err)
		return
	}
	a.writeItem(c, http.StatusOK, it)
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

// checkVariant checks v as a variant of it, whose other variants keep their
// labels (self is v's own id, 0 for a new one).
func (a adminAPI) checkVariant(it catalog.Item, v catalog.Variant, self int64) error {
	if err := validateVariant("", v, it); err != nil {
		return err
	}
	for _, other := range it.Variants {
		if other.ID != self && strings.EqualFold(other.Label, v.Label) {
			return errLabelTaken
		}
	}
	return nil
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
