package httpapi

import (
	"io/fs"
	"net/http"
	"path"

	"github.com/gin-gonic/gin"
)

// page serves one embedded page. http.FileServer would redirect
// /index.html to ./, which for "/" loops.
func (s *Server) page(name string) gin.HandlerFunc {
	body, err := fs.ReadFile(s.Web, name)
	if err != nil {
		panic("web: missing " + name) // a build mistake, caught by any test
	}
	return func(c *gin.Context) {
		c.Header("Cache-Control", "no-cache")
		c.Data(http.StatusOK, "text/html; charset=utf-8", body)
	}
}

// static serves the files under web/static; directories are not listed.
func (s *Server) static(c *gin.Context) {
	name := path.Join("static", path.Clean("/"+c.Param("filepath")))
	info, err := fs.Stat(s.Web, name)
	if err != nil || info.IsDir() {
		writeError(c, apiErr(http.StatusNotFound, "not_found", "no such file"))
		return
	}
	c.Header("Cache-Control", "no-cache") // revalidate: the files change with each release
	http.ServeFileFS(c.Writer, c.Request, s.Web, name)
}
