package httpapi

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/catalog"
)

// SaleControl stops and ends live sales (sale.Service).
type SaleControl interface {
	Pause(ctx context.Context, id int64) (catalog.Item, error)
	Resume(ctx context.Context, id int64) (catalog.Item, error)
	End(ctx context.Context, id int64) (catalog.Item, error)
}

func (a adminAPI) pauseItem(c *gin.Context)  { a.control(c, a.sales.Pause) }
func (a adminAPI) resumeItem(c *gin.Context) { a.control(c, a.sales.Resume) }
func (a adminAPI) endItem(c *gin.Context)    { a.control(c, a.sales.End) }

// control applies one of the live controls to the sale of :id and answers
// with the sale as it now stands.
func (a adminAPI) control(c *gin.Context, act func(context.Context, int64) (catalog.Item, error)) {
	id, err := pathID(c, errItemNotFound)
	if err != nil {
		a.fail(c, err)
		return
	}
	it, err := act(c.Request.Context(), id)
	if err != nil {
		a.fail(c, err)
		return
	}
	a.writeItem(c, http.StatusOK, it)
}
