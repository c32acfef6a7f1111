package httpapi

import (
	"errors"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/order"
)

// OrderFeed wakes a stream when its order may have changed on any server
// (orderfeed.Feed).
type OrderFeed interface {
	Follow(orderID string) (<-chan struct{}, func())
}

// orderLookEvery is how often a stream reads its order without being
// woken: a wake-up lost with a dropped subscription delays the page this
// long at most, and it costs a tenth of the old half-second polling.
const orderLookEvery = 5 * time.Second

// events streams the shopper's order: an "order" event with the order as
// GET /orders/{id} shows it at once, and again whenever it changes
// (confirmed in MySQL, paid, cancelled). An order that vanishes (MySQL
// refused it) ends the stream with an "error" event. The page closes the
// stream when it has seen what it waited for.
func (a orderAPI) events(c *gin.Context) {
	ctx, user, id := c.Request.Context(), userOf(c), c.Param("id")
	var wake <-chan struct{}
	if a.feed != nil {
		var unfollow func()
		wake, unfollow = a.feed.Follow(id) // before the first read: a change in between still wakes it
		defer unfollow()
	}
	last, err := a.lookup.Find(ctx, user, id)
	if err != nil {
		a.fail(c, err)
		return
	}
	sse := startSSE(c)
	defer sse.stop()
	sse.send("order", last)
	look := time.NewTicker(orderLookEvery)
	defer look.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.sse.stopping:
			return
		case <-sse.ping.C:
			sse.keepAlive()
			continue
		case <-wake:
		case <-look.C:
		}
		o, err := a.lookup.Find(ctx, user, id)
		switch {
		case errors.Is(err, order.ErrNotFound):
			sse.send("error", gin.H{"error": errOrderNotFound})
			return
		case err != nil: // look again on the next wake-up or tick
		case o != last:
			last = o
			sse.send("order", o)
		}
	}
}
