package httpapi

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/catalog"
)

// itemJSON is a sale as the API shows it.
type itemJSON struct {
	ID           int64     `json:"id"`
	Name         string    `json:"name"`
	Description  string    `json:"description"`
	PriceCents   int64     `json:"price_cents"`
	StockTotal   int       `json:"stock_total"`
	StockLeft    int       `json:"stock_left"`
	PerUserLimit int       `json:"per_user_limit"`
	RoomRate     int       `json:"room_rate"`
	StartsAt     time.Time `json:"starts_at"`
	EndsAt       time.Time `json:"ends_at"`
	Status       string    `json:"status"`
}

var errItemNotFound = apiErr(http.StatusNotFound, "item_not_found", "no such sale")

// present shows it with live stock from Redis when warm, else MySQL's.
func present(it catalog.Item, levels map[int64]int64, now time.Time) itemJSON {
	left := it.Stock
	if n, ok := levels[it.ID]; ok {
		left = int(n)
	}
	return itemJSON{ID: it.ID, Name: it.Name, Description: it.Description, PriceCents: it.PriceCents,
		StockTotal: it.StockTotal, StockLeft: left, PerUserLimit: it.PerUserLimit, RoomRate: it.RoomRate,
		StartsAt: it.StartsAt.UTC(), EndsAt: it.EndsAt.UTC(), Status: it.Status(now, left)}
}

func (s *Server) listItems(c *gin.Context) {
	ctx := c.Request.Context()
	items, err := s.Catalog.List(ctx)
	if err != nil {
		writeError(c, err)
		return
	}
	ids := make([]int64, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	levels, err := s.Stock.Levels(ctx, ids)
	if err != nil {
		writeError(c, err)
		return
	}
	now := s.Now()
	out := make([]itemJSON, len(items))
	for i, it := range items {
		out[i] = present(it, levels, now)
	}
	c.JSON(http.StatusOK, gin.H{"items": out, "server_time": now.UTC()})
}

func (s *Server) getItem(c *gin.Context) {
	if it, ok := s.itemFromPath(c); ok {
		s.writeItem(c, http.StatusOK, it)
	}
}

// itemFromPath loads the sale named by :id; when it cannot, it has
// answered already and reports false.
func (s *Server) itemFromPath(c *gin.Context) (catalog.Item, bool) {
	id, err := pathID(c, errItemNotFound)
	if err != nil {
		writeError(c, err)
		return catalog.Item{}, false
	}
	it, err := s.Catalog.Get(c.Request.Context(), id)
	if err != nil {
		writeError(c, err)
		return catalog.Item{}, false
	}
	return it, true
}

func (s *Server) writeItem(c *gin.Context, status int, it catalog.Item) {
	levels, err := s.Stock.Levels(c.Request.Context(), []int64{it.ID})
	if err != nil {
		writeError(c, err)
		return
	}
	c.JSON(status, present(it, levels, s.Now()))
}
