package httpapi

import (
	"os"
	"testing"

	"github.com/gin-gonic/gin"
)

// TestMain sets Gin's mode once: it is process-wide, and tests that set it
// themselves could not run in parallel.
func TestMain(m *testing.M) {
	gin.SetMode(gin.ReleaseMode)
	os.Exit(m.Run())
}
