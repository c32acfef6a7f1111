package httpapi

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

func (s *Server) healthz(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"status": "ok"}) }

// readyz is 200 when MySQL and Redis answer and the scripts are loaded;
// otherwise 503 naming what failed, so a load balancer stops routing here.
func (s *Server) readyz(c *gin.Context) {
	failed := s.Ready(c.Request.Context())
	if len(failed) > 0 {
		c.JSON(http.StatusServiceUnavailable, gin.H{"status": "unavailable", "failed": failed})
		return
	}
	c.JSON(http.StatusOK, gin.H{"status": "ready"})
}
