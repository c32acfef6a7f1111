package httpapi

import (
	"bytes"
	"context"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/saleview"
)

// snapshots are the shared sale snapshots (saleview.Snapshots) under the
// names shop.go calls them by; shop.go is being reworked for the purchase's
// front door, and can call saleview directly once that has landed.
type snapshots struct{ shared *saleview.Snapshots }

// snapshot is a saleview.Snapshot as shop.go reads it.
type snapshot struct {
	body []byte
	etag string
}

func newSnapshots(v saleView) *snapshots { return &snapshots{saleview.NewSnapshots(v.view)} }

func (s *snapshots) forget() { s.shared.Forget() }

func (s *snapshots) item(ctx context.Context, id int64) (snapshot, error) {
	return fromShared(s.shared.Item(ctx, id))
}

func (s *snapshots) firstPage(ctx context.Context) (snapshot, error) {
	return fromShared(s.shared.FirstPage(ctx))
}

func (s *snapshots) page(ctx context.Context, cur *catalog.Cursor, limit int) (snapshot, error) {
	return fromShared(s.shared.Page(ctx, cur, limit))
}

func fromShared(snap saleview.Snapshot, err error) (snapshot, error) {
	return snapshot{body: snap.Body, etag: snap.ETag}, err
}

// writeSnapshot answers with a sale's snapshot, or 304 when the client (or
// a proxy or CDN in front) already holds it: net/http's ServeContent reads
// If-None-Match against the ETag set here. public, max-age=1 lets a cache
// in front answer the once-a-second refreshes of every page.
func writeSnapshot(c *gin.Context, snap snapshot) {
	h := c.Writer.Header()
	h.Set("ETag", snap.etag)
	h.Set("Cache-Control", "public, max-age=1")
	h.Set("Content-Type", "application/json; charset=utf-8")
	http.ServeContent(c.Writer, c.Request, "", time.Time{}, bytes.NewReader(snap.body))
}
