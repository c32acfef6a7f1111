package httpapi

import (
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/saleview"
)

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
