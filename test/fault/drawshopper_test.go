package fault

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/harness"
)

// What a drawn shopper does with the unit offered to them.
const (
	planBuy    = "buy"    // buys at once
	planLapse  = "lapse"  // lets the window pass
	planCancel = "cancel" // buys at once, then cancels the order
)

// drawShopper is one entrant of a draw, driven as the shop's page would:
// it looks at its entry until it has won, then follows its plan.
type drawShopper struct {
	user, token, plan string
	variant           int64
	place             int
	order             string // the order it holds (or cancelled)
	acked             bool   // the order came with a 202 (else named by a 409, or by its entry)
	done              bool
}

// drawDriver drives the waiting shoppers of a draw sale against one
// server, which may be dead for a while: a shopper whose request gets no
// answer tries again in the next round.
type drawDriver struct {
	api      *harness.Client
	id       int64
	shoppers []*drawShopper

	mu       sync.Mutex
	problems []string
	stop     chan struct{}
	stopping sync.Once
	stopped  chan struct{}
}

func startDriver(api *harness.Client, id int64, shoppers []*drawShopper) *drawDriver {
	d := &drawDriver{api: api, id: id, shoppers: shoppers, stop: make(chan struct{}), stopped: make(chan struct{})}
	go d.run()
	return d
}

// run makes a round of every shopper not done yet every 50 ms until stopped.
func (d *drawDriver) run() {
	defer close(d.stopped)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		for _, sh := range d.shoppers {
			if !sh.done {
				d.step(sh)
			}
		}
		select {
		case <-d.stop:
			return
		case <-tick.C:
		}
	}
}

// Stop ends the rounds and returns what went wrong for the shoppers; it
// may be called again.
func (d *drawDriver) Stop() []string {
	d.stopping.Do(func() { close(d.stop) })
	<-d.stopped
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.problems
}

func (d *drawDriver) problem(format string, args ...any) {
	d.mu.Lock()
	d.problems = append(d.problems, fmt.Sprintf(format, args...))
	d.mu.Unlock()
}

func (d *drawDriver) path(suffix string) string {
	return "/api/v1/items/" + strconv.FormatInt(d.id, 10) + suffix
}

// step looks at sh's entry and acts once it has won.
func (d *drawDriver) step(sh *drawShopper) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	e, err := d.api.Do(ctx, "GET", d.path("/entry"), sh.token, nil)
	if err != nil || e.Status != http.StatusOK || e.Str("result") != "won" {
		return
	}
	if sh.plan == planLapse {
		sh.done = true
		return
	}
	if sh.order == "" && e.Str("order_id") != "" {
		sh.order = e.Str("order_id") // its 202 was lost to a kill
	}
	if sh.order == "" {
		if e.Body["purchase_deadline"] == nil {
			d.problem("%s (place %d of variant %d) won but its window closed before it could buy: %s", sh.user, sh.place, sh.variant, e.Raw)
			sh.done = true
			return
		}
		d.buy(ctx, sh)
	}
	switch {
	case sh.order == "":
	case sh.plan == planBuy:
		sh.done = true
	case sh.plan == planCancel:
		r, err := d.api.Do(ctx, "POST", "/api/v1/orders/"+sh.order+"/cancel", sh.token, nil)
		sh.done = err == nil && r.Status == http.StatusOK // 409 order_pending: not in MySQL yet
	}
}

func (d *drawDriver) buy(ctx context.Context, sh *drawShopper) {
	r, err := d.api.Do(ctx, "POST", d.path("/purchase"), sh.token, purchaseBody(sh.variant, 1))
	switch {
	case err != nil:
	case r.Status == http.StatusAccepted:
		sh.order, sh.acked = r.Str("order_id"), true
	case r.Code() == "already_purchased": // a 202 lost to a kill
		e, _ := r.Body["error"].(map[string]any)
		sh.order, _ = e["order_id"].(string)
	case r.Code() == "not_drawn", r.Code() == "unavailable":
		// Redis does not have the offer MySQL made yet: a kill came
		// between the two writes, and the next run copies it over.
	default:
		d.problem("purchase by %s (place %d of variant %d): %d %s", sh.user, sh.place, sh.variant, r.Status, r.Raw)
	}
}

// result is what the shoppers were told, in the storm's terms, for Verify.
func (d *drawDriver) result() Result {
	res := Result{Outcomes: map[string]int{}, Acked: map[string]string{}, Named: map[string]string{},
		Qty: map[string]int{}, Variant: map[string]int64{}}
	for _, sh := range d.shoppers {
		res.Qty[sh.user] = 1
		switch {
		case sh.order == "":
		case sh.acked:
			res.Acked[sh.user], res.Variant[sh.user] = sh.order, sh.variant
		default:
			res.Named[sh.user] = sh.order
		}
	}
	return res
}

// drawShoppers mints the first `waiting` entrants of each variant's
// ranking; the first units of each follow plans in turn, the rest buy.
func drawShoppers(tb testing.TB, secret string, rank map[int64][]string, users map[string]string, units map[int64]int,
	plans []string, waiting int) []*drawShopper {
	tb.Helper()
	var out []*drawShopper
	for v, r := range rank {
		for i, e := range r[:min(waiting, len(r))] {
			tok, err := MintToken(secret, users[e])
			if err != nil {
				tb.Fatal(err)
			}
			sh := &drawShopper{user: users[e], token: tok, plan: planBuy, variant: v, place: i + 1}
			if i < units[v] {
				sh.plan = plans[i%len(plans)]
			}
			out = append(out, sh)
		}
	}
	return out
}
