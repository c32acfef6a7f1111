package httpapi

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/sync/stocksync"
	"github.com/seckill/seckill/internal/token"
)

// SaleChanger creates and changes sales in both stores (sale.Service).
type SaleChanger interface {
	Create(ctx context.Context, it catalog.Item) (catalog.Item, error)
	Update(ctx context.Context, id int64, p catalog.Patch) (catalog.Item, error)
	UpdateVariant(ctx context.Context, itemID, variantID int64, p catalog.VariantPatch) (catalog.Item, error)
	AddVariant(ctx context.Context, itemID int64, v catalog.Variant) (catalog.Item, error)
	DeleteVariant(ctx context.Context, itemID, variantID int64) (catalog.Item, error)
	// Warm is an admin's warm, recorded in the audit log.
	Warm(ctx context.Context, itemID int64) error
	SaleControl
}

// Retirer retires sales that are done (sale.Service).
type Retirer interface {
	Retire(ctx context.Context, id int64) (catalog.Item, error)
}

// SyncAdmin keeps Redis in step with MySQL on an admin's word
// (stocksync.Syncer).
type SyncAdmin interface {
	Stats(ctx context.Context, itemID int64) (stocksync.Stats, error)
	Reconcile(ctx context.Context) (stocksync.Report, error)
	Check(ctx context.Context) (stocksync.Report, error)
}

// Events hands out the dashboard's stream of snapshots (dashboard.Hub).
type Events interface {
	Subscribe() (<-chan []byte, func())
}

// adminAPI is the shop's side: creating and changing sales, and watching
// and repairing both stores.
type adminAPI struct {
	saleView
	sales     SaleChanger
	retirer   Retirer
	orders    OrderAdmin
	sync      SyncAdmin
	dashboard Events
	audit     AuditLog
	sessions  token.Admin // asked by a dashboard stream whether its session was signed out
	sse       sseStreams
}

func (a adminAPI) createItem(c *gin.Context) {
	it, err := readNewItem(c)
	if err != nil {
		a.fail(c, err)
		return
	}
	it, err = a.sales.Create(c.Request.Context(), it)
	if err != nil {
		a.fail(c, err)
		return
	}
	a.writeItem(c, http.StatusCreated, it)
}

func (a adminAPI) updateItem(c *gin.Context) {
	id, err := pathID(c, errItemNotFound)
	if err != nil {
		a.fail(c, err)
		return
	}
	p, err := readPatch(c)
	if err != nil {
		a.fail(c, err)
		return
	}
	ctx := c.Request.Context()
	cur, err := a.catalog.Get(ctx, id)
	if err != nil {
		a.fail(c, err)
		return
	}
	if err := p.Apply(cur).Check(); err != nil {
		a.fail(c, invalidField("", err))
		return
	}
	it, err := a.sales.Update(ctx, id, p)
	if err != nil {
		a.fail(c, err)
		return
	}
	a.writeItem(c, http.StatusOK, it)
}

func (a adminAPI) warmItem(c *gin.Context) {
	id, err := pathID(c, errItemNotFound)
	if err != nil {
		a.fail(c, err)
		return
	}
	if err := a.sales.Warm(c.Request.Context(), id); err != nil {
		a.fail(c, err)
		return
	}
	a.itemStats(c)
}

// retireItem retires a sale that is done; a retired sale answers the same
// again.
func (a adminAPI) retireItem(c *gin.Context) {
	id, err := pathID(c, errItemNotFound)
	if err != nil {
		a.fail(c, err)
		return
	}
	it, err := a.retirer.Retire(c.Request.Context(), id)
	if err != nil {
		a.fail(c, err)
		return
	}
	a.writeItem(c, http.StatusOK, it)
}

func (a adminAPI) itemStats(c *gin.Context) {
	id, err := pathID(c, errItemNotFound)
	if err != nil {
		a.fail(c, err)
		return
	}
	st, err := a.sync.Stats(c.Request.Context(), id)
	if err != nil {
		a.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, st)
}

// checkStores checks every open sale now and reports what drifted; a GET
// changes nothing (a crawler, a prefetch or a reload must not repair).
func (a adminAPI) checkStores(c *gin.Context) { a.report(c, a.sync.Check) }

// reconcile checks every open sale now and repairs Redis where it drifted.
func (a adminAPI) reconcile(c *gin.Context) { a.report(c, a.sync.Reconcile) }

func (a adminAPI) report(c *gin.Context, run func(context.Context) (stocksync.Report, error)) {
	rep, err := run(c.Request.Context())
	if err != nil {
		a.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, rep)
}

// events streams dashboard snapshots as Server-Sent Events until the client
// leaves or the server shuts down. Snapshots are computed once per second by
// the hub, however many admins watch.
func (a adminAPI) events(c *gin.Context) {
	ch, stop := a.dashboard.Subscribe()
	defer stop()
	alive := func() bool { return true }
	if cookie := c.GetString(adminSessionKey); cookie != "" {
		// A dashboard left open must stop when its session is signed out.
		alive = func() bool {
			ok, err := a.sessions.Valid(c.Request.Context(), cookie)
			return ok || err != nil // an unreachable list ends nothing already open
		}
	}
	pumpWhile(a.sse, c, ch, func(sse *sseStream, b []byte) { sse.sendRaw("stats", b) }, alive)
}
