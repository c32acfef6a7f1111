package httpapi

import (
	"bytes"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/saleview"
)

// SaleReader (catalog.Store) and StockLevels (stock.Store) are what the
// sale views read, so they are saleview's own interfaces: a handler that
// reads a sale itself needs nothing more of the stores.
type (
	SaleReader  = saleview.Catalog
	StockLevels = saleview.Stock
)

// saleView is what the shop, the room and the admin handlers share to
// answer with sales: the view that builds them (saleview.View), and the
// catalog and clock for the handlers that need the bare sale.
type saleView struct {
	replier
	catalog SaleReader
	view    saleview.View
	now     func() time.Time
}

func newSaleView(rep replier, c SaleReader, s StockLevels, now func() time.Time) saleView {
	return saleView{replier: rep, catalog: c, view: saleview.New(c, s, now), now: now}
}

// itemFromPath loads the sale named by :id; when it cannot, it has
// answered already and reports false.
func (v saleView) itemFromPath(c *gin.Context) (catalog.Item, bool) {
	id, err := pathID(c, errItemNotFound)
	if err != nil {
		v.fail(c, err)
		return catalog.Item{}, false
	}
	it, err := v.catalog.Get(c.Request.Context(), id)
	if err != nil {
		v.fail(c, err)
		return catalog.Item{}, false
	}
	return it, true
}

// writeItem answers with the sale and its live stock.
func (v saleView) writeItem(c *gin.Context, status int, it catalog.Item) {
	out, err := v.view.Of(c.Request.Context(), it)
	if err != nil {
		v.fail(c, err)
		return
	}
	c.JSON(status, out)
}

// defaultPageLimit is the page everyone loads, the one the shared
// snapshot holds.
const defaultPageLimit = saleview.DefaultPageLimit

// pageQuery reads ?limit= and ?cursor=. The cursor is nil for the first
// page, whose AsOf is the moment it is read.
func pageQuery(c *gin.Context) (cur *catalog.Cursor, limit int, err error) {
	limit = defaultPageLimit
	if s, ok := c.GetQuery("limit"); ok {
		if limit, err = strconv.Atoi(s); err != nil || limit < 1 || limit > saleview.MaxPageLimit {
			return nil, 0, invalidLimit(saleview.MaxPageLimit)
		}
	}
	if s, ok := c.GetQuery("cursor"); ok {
		cur, err := saleview.DecodeCursor(s)
		if err != nil {
			return nil, 0, errInvalidCursor
		}
		return &cur, limit, nil
	}
	return nil, limit, nil
}

// snapshots are the sale snapshots the shop's handlers share.
type snapshots = saleview.Snapshots

func newSnapshots(v saleView) *snapshots { return saleview.NewSnapshots(v.view) }

// writeSnapshot answers with a sale's snapshot, or 304 when the client (or
// a proxy or CDN in front) already holds it: net/http's ServeContent reads
// If-None-Match against the ETag set here. public, max-age=1 lets a cache
// in front answer the once-a-second refreshes of every page.
func writeSnapshot(c *gin.Context, snap saleview.Snapshot) {
	h := c.Writer.Header()
	h.Set("ETag", snap.ETag)
	h.Set("Cache-Control", "public, max-age=1")
	h.Set("Content-Type", "application/json; charset=utf-8")
	http.ServeContent(c.Writer, c.Request, "", time.Time{}, bytes.NewReader(snap.Body))
}
