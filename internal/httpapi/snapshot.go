package httpapi

import (
	"bytes"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/saleview"
)

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
