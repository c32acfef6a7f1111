package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/order"
	"github.com/seckill/seckill/internal/report"
)

// Reports builds a sale's post-sale report from MySQL (report.Builder).
type Reports interface {
	Build(ctx context.Context, itemID int64) (report.Report, error)
}

// OrderPages reads a sale's orders a keyset page at a time (order.Store).
type OrderPages interface {
	EachPage(ctx context.Context, itemID int64, after string, n int, fn func(*order.Order) error) (int, error)
}

// reportAPI is what happened in a sale: its report and its orders as CSV.
type reportAPI struct {
	saleView
	reports Reports
	orders  OrderPages
}

func (a reportAPI) report(c *gin.Context) {
	id, err := pathID(c, errItemNotFound)
	if err == nil {
		var r report.Report
		if r, err = a.reports.Build(c.Request.Context(), id); err == nil {
			c.Header("Cache-Control", "no-store")
			c.JSON(http.StatusOK, r)
			return
		}
	}
	a.fail(c, err)
}

// csvPage is the orders one query of the export reads: memory holds one
// page, whatever the sale's size.
const csvPage = 5000

// ordersCSV streams the sale's orders, one keyset page per query, each page
// flushed to the client before the next is read. Once the first row is
// sent the status is 200 whatever follows: a failure later is logged and
// aborts the connection (http.ErrAbortHandler), so the client sees a broken
// transfer rather than the clean end of a file missing rows.
func (a reportAPI) ordersCSV(c *gin.Context) {
	it, ok := a.itemFromPath(c)
	if !ok {
		return
	}
	id := it.ID
	h := c.Writer.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="sale-`+strconv.FormatInt(id, 10)+`-orders.csv"`)
	h.Set("Cache-Control", "no-store")
	c.Status(http.StatusOK)
	w, after := report.NewOrdersCSV(c.Writer), ""
	write := func(o *order.Order) error {
		after = o.ID
		return w.Write(o)
	}
	for {
		n, err := a.orders.EachPage(c.Request.Context(), id, after, csvPage, write)
		err = errors.Join(err, w.Flush())
		c.Writer.Flush()
		if err != nil {
			a.log.ErrorContext(c.Request.Context(), "orders export cut short", "item_id", id, "err", err)
			panic(http.ErrAbortHandler)
		}
		if n < csvPage {
			return
		}
	}
}
