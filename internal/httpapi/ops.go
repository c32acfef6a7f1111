package httpapi

import (
	"context"
	"io/fs"
	"net/http"
	"path"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/coalesce"
)

// opsAPI is what operators and browsers fetch without signing in: health,
// readiness and the pages with their files.
type opsAPI struct {
	replier
	ready func(ctx context.Context) map[string]string // failing checks by name
	web   fs.FS
}

// cachedReady reuses a readiness verdict for Settings.OpsCache (the
// /metrics page, Metrics.Page, caches its gathering the same way).
var cachedReady = coalesce.Cached[map[string]string]

func (o opsAPI) healthz(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"status": "ok"}) }

// readyz is 200 "ready" when MySQL and Redis answer and the scripts are
// loaded. With MySQL alone down it is still 200, "degraded": purchases are
// answered from Redis and queue up until MySQL is back, so a load balancer
// must keep routing here. Without Redis (or its scripts) nothing can be sold:
// 503, naming what failed.
func (o opsAPI) readyz(c *gin.Context) {
	failed := o.ready(c.Request.Context())
	switch {
	case len(failed) == 0:
		c.JSON(http.StatusOK, gin.H{"status": "ready"})
	case len(failed) == 1 && failed["mysql"] != "":
		c.JSON(http.StatusOK, gin.H{"status": "degraded", "failed": failed})
	default:
		c.JSON(http.StatusServiceUnavailable, gin.H{"status": "unavailable", "failed": failed})
	}
}

// page serves one embedded page. http.FileServer would redirect
// /index.html to ./, which for "/" loops.
func (o opsAPI) page(name string) gin.HandlerFunc {
	body, err := fs.ReadFile(o.web, name)
	if err != nil {
		panic("web: missing " + name) // a build mistake, caught by any test
	}
	return func(c *gin.Context) {
		c.Header("Cache-Control", "no-cache")
		c.Data(http.StatusOK, "text/html; charset=utf-8", body)
	}
}

// static serves the files under web/static; directories are not listed.
func (o opsAPI) static(c *gin.Context) {
	name := path.Join("static", path.Clean("/"+c.Param("filepath")))
	info, err := fs.Stat(o.web, name)
	if err != nil || info.IsDir() {
		o.fail(c, errNoFile)
		return
	}
	c.Header("Cache-Control", "no-cache") // revalidate: the files change with each release
	http.ServeFileFS(c.Writer, c.Request, o.web, name)
}
