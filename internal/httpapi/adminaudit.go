package httpapi

import (
	"context"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/audit"
)

// AuditLog pages the audit log (audit.Store).
type AuditLog interface {
	List(ctx context.Context, f audit.Filter, limit int, cursor int64) (audit.Page, error)
}

// auditLog answers a page of the audit log, newest first. The cursor is the
// id of the last entry of the page before, so entries recorded meanwhile
// never shift a page.
func (a adminAPI) auditLog(c *gin.Context) {
	limit, cursor, f, err := auditQuery(c)
	if err != nil {
		a.fail(c, err)
		return
	}
	p, err := a.audit.List(c.Request.Context(), f, limit, cursor)
	if err != nil {
		a.fail(c, err)
		return
	}
	var next *string
	if p.Next != 0 {
		s := strconv.FormatInt(p.Next, 10)
		next = &s
	}
	c.JSON(http.StatusOK, gin.H{"entries": p.Entries, "next_cursor": next})
}

func auditQuery(c *gin.Context) (limit int, cursor int64, f audit.Filter, err error) {
	if limit, cursor, err = seqPage(c); err != nil {
		return 0, 0, f, err
	}
	if s, ok := c.GetQuery("item_id"); ok {
		if f.ItemID, err = strconv.ParseInt(s, 10, 64); err != nil || f.ItemID < 1 {
			return 0, 0, f, invalid("item_id", "item_id must be a sale's id")
		}
	}
	f.Action = c.Query("action")
	return limit, cursor, f, nil
}

// Paging of the admin lists paged by sequence number (GET /admin/audit,
// GET /admin/webhooks).
const (
	seqPageDefault = 50
	seqPageMax     = 200
)

// seqPage reads the limit (seqPageDefault when absent, at most seqPageMax)
// and cursor of a list paged by a sequence number, newest first: the cursor
// is the number of the previous page's last entry.
func seqPage(c *gin.Context) (limit int, cursor int64, err error) {
	limit = seqPageDefault
	if s, ok := c.GetQuery("limit"); ok {
		if limit, err = strconv.Atoi(s); err != nil || limit < 1 || limit > seqPageMax {
			return 0, 0, invalidLimit(seqPageMax)
		}
	}
	if s, ok := c.GetQuery("cursor"); ok {
		if cursor, err = strconv.ParseInt(s, 10, 64); err != nil || cursor < 1 {
			return 0, 0, errInvalidCursor
		}
	}
	return limit, cursor, nil
}
