package httpapi

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

func (s *Server) healthz(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"status": "ok"}) }

// readyz is 200 "ready" when MySQL and Redis answer and the scripts are
// loaded. With MySQL alone down it is still 200, "degraded": purchases are
// answered from Redis and queue up until MySQL is back, so a load balancer
// must keep routing here. Without Redis (or its scripts) nothing can be sold:
// 503, naming what failed.
func (s *Server) readyz(c *gin.Context) {
	failed := s.Ready(c.Request.Context())
	switch {
	case len(failed) == 0:
		c.JSON(http.StatusOK, gin.H{"status": "ready"})
	case len(failed) == 1 && failed["mysql"] != "":
		c.JSON(http.StatusOK, gin.H{"status": "degraded", "failed": failed})
	default:
		c.JSON(http.StatusServiceUnavailable, gin.H{"status": "unavailable", "failed": failed})
	}
}
