package runner

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/seckill/seckill/internal/ctxtime"
	"github.com/seckill/seckill/internal/order"
)

// The old way of following an order, as the sale page did it: the first
// poll 300 ms after the purchase, then one every 500 ms until it is no
// longer pending.
const (
	pollFirst = 300 * time.Millisecond
	pollEvery = 500 * time.Millisecond
)

// followTimeout bounds one shopper's wait for confirmation; one that waits
// longer is counted as not confirmed.
const followTimeout = time.Minute

// sseRetry is EventSource's wait before reconnecting when a stream asked
// for none (browsers use about 3 s).
const sseRetry = 3 * time.Second

// followed is one shopper's times from sending the purchase: to its 202,
// and to seeing the order confirmed; 0 for what never came.
type followed struct{ bought, confirmed time.Duration }

// buyAndFollow is one shopper: buy, then follow the order until it is
// confirmed.
func (r *runner) buyAndFollow(ctx context.Context, sh shopper, token string, item int64, sse bool, counts *tally) followed {
	ctx, cancel := context.WithTimeout(ctx, followTimeout)
	defer cancel()
	c := newBrowser()
	defer c.CloseIdleConnections()
	began := time.Now()
	status, orderID, err := buy(ctx, c, r.seckill.url, sh, token, item)
	counts.add("purchase", status, err)
	if err != nil || status != http.StatusAccepted {
		return followed{}
	}
	f := followed{bought: time.Since(began)}
	if followOrder(ctx, c, r.seckill.url, sh, orderID, sse, counts) {
		f.confirmed = time.Since(began)
	}
	return f
}

// followOrder follows one order until it leaves pending, by polling or by
// the order's event stream, counting every request in counts; it reports
// whether the order was seen confirmed before ctx ended.
func followOrder(ctx context.Context, c *http.Client, base string, sh shopper, orderID string, sse bool, counts *tally) bool {
	if sse {
		return streamOrder(ctx, c, base, sh, orderID, counts)
	}
	return pollOrder(ctx, c, base, sh, orderID, counts)
}

func pollOrder(ctx context.Context, c *http.Client, base string, sh shopper, orderID string, counts *tally) bool {
	wait := pollFirst
	for {
		if ctxtime.Sleep(ctx, wait) != nil {
			return false
		}
		wait = pollEvery
		status, st, err := getOrder(ctx, c, base, sh, orderID)
		if ctx.Err() != nil {
			return false
		}
		counts.add("poll", status, err)
		// A 404 can come while the order moves from Redis to MySQL: the
		// page polls on, as it does after any failure.
		if err == nil && status == http.StatusOK && st != order.StatusPending {
			return true
		}
	}
}

// errGaveUp is a stream that answered other than 200: EventSource does not
// reconnect after that, and neither does the follower.
var errGaveUp = errors.New("the order stream was refused")

// streamOrder opens the order's event stream and reads it until an order
// event says the order left pending, reconnecting as EventSource does when
// the stream ends early.
func streamOrder(ctx context.Context, c *http.Client, base string, sh shopper, orderID string, counts *tally) bool {
	for {
		done, retry, err := streamOnce(ctx, c, base, sh, orderID, counts)
		switch {
		case done:
			return true
		case errors.Is(err, errGaveUp) || ctx.Err() != nil:
			return false
		}
		if ctxtime.Sleep(ctx, retry) != nil {
			return false
		}
	}
}

// streamOnce reads one connection of the stream: done when an order event
// said the order left pending; otherwise the wait the stream asked for
// before reconnecting.
func streamOnce(ctx context.Context, c *http.Client, base string, sh shopper, orderID string, counts *tally) (bool, time.Duration, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // closes the stream, as EventSource.close() does
	req, err := http.NewRequestWithContext(ctx, "GET", base+"/api/v1/orders/"+orderID+"/events", nil)
	if err != nil {
		return false, 0, err
	}
	req.Header.Set("Authorization", "Bearer "+sh.jwt)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.Do(req)
	if err != nil {
		counts.add("stream", 0, err)
		return false, sseRetry, err
	}
	defer resp.Body.Close()
	counts.add("stream", resp.StatusCode, nil)
	if resp.StatusCode != http.StatusOK {
		return false, 0, errGaveUp
	}
	events := newSSEReader(resp.Body)
	for {
		ev, err := events.Next()
		if err != nil {
			retry := events.Retry
			if retry == 0 {
				retry = sseRetry
			}
			return false, retry, err
		}
		if ev.Event != "order" {
			continue
		}
		var o orderStatus
		if json.Unmarshal([]byte(ev.Data), &o) == nil && o.Status != "" && o.Status != order.StatusPending {
			return true, 0, nil
		}
	}
}
