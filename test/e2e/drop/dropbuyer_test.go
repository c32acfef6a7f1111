package drop

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/seckill/seckill/test/e2e/e2etest"
)

// dropBuyer is one shopper of the drop storm. It knows what it holds, so it
// can tell every answer it gets right from wrong.
type dropBuyer struct {
	s              *e2etest.Server
	item           int64
	sizes          []int64
	user, token    string
	rng            *rand.Rand
	keyed, cancels bool
	tally          *dropTally
	holds          heldOrder // id "" for none
}

// shop tries four sizes drawn at random, then records what it holds.
func (b *dropBuyer) shop(t *testing.T) {
	for attempt := range 4 {
		v := b.sizes[b.rng.IntN(len(b.sizes))]
		key := ""
		if b.keyed {
			key = b.user + "-" + strconv.Itoa(attempt)
		}
		r := b.s.BuyVariant(t, b.item, v, b.token, key)
		b.tally.record(func() { b.tally.outcomes[outcomeOf(r)]++ })
		b.judge(t, v, key, r)
	}
	if b.holds.id != "" {
		b.tally.record(func() { b.tally.held[b.user] = b.holds })
	}
}

// judge checks one answer against what the shopper holds: an order only
// while holding none, already_purchased naming the order held, sold out
// offering only other sizes of the drop, busy; nothing else.
func (b *dropBuyer) judge(t *testing.T, v int64, key string, r e2etest.Reply) {
	switch outcomeOf(r) {
	case "202":
		if b.holds.id != "" || int64(e2etest.Num(r.Body, "variant_id")) != v {
			t.Errorf("%s holding %q bought size %d: %s", b.user, b.holds.id, v, r.Raw)
		}
		b.holds = heldOrder{r.Str("order_id"), v}
		if key != "" {
			b.replay(t, v, key)
		}
		if b.cancels {
			b.cancels = false
			b.cancel(t)
		}
	case "409 already_purchased":
		if e, _ := r.Body["error"].(map[string]any); b.holds.id == "" || e["order_id"] != b.holds.id {
			t.Errorf("%s holding %q: %s", b.user, b.holds.id, r.Raw)
		}
	case "410 sold_out":
		e, _ := r.Body["error"].(map[string]any)
		avail, ok := e["available_variants"].([]any)
		for _, a := range avail {
			if f, _ := a.(float64); int64(f) == v || !b.sells(int64(f)) {
				t.Errorf("%s asking for size %d is offered %v: %s", b.user, v, a, r.Raw)
			}
		}
		if !ok {
			t.Errorf("%s asking for size %d: sold out without available_variants: %s", b.user, v, r.Raw)
		}
		if len(avail) > 0 {
			b.tally.record(func() { b.tally.offered++ })
		}
	case "503 unavailable":
	default:
		t.Errorf("%s asking for size %d: %d %s", b.user, v, r.Status, r.Raw)
	}
}

// replay retries the purchase just made with its Idempotency-Key, as a
// client that lost the answer would: it must get the same order back,
// whatever happened to the size or the drop meanwhile, even from a server
// whose marks and admission gate say sold out.
func (b *dropBuyer) replay(t *testing.T, v int64, key string) {
	r := untilAnswered(func() e2etest.Reply { return b.s.BuyVariant(t, b.item, v, b.token, key) })
	b.tally.record(func() { b.tally.outcomes[outcomeOf(r)]++ })
	if outcomeOf(r) != "202 replayed" || r.Str("order_id") != b.holds.id || int64(e2etest.Num(r.Body, "variant_id")) != v {
		t.Errorf("%s retrying key %s of order %s (size %d): %d %s", b.user, key, b.holds.id, v, r.Status, r.Raw)
	}
}

// cancel cancels the order held, retrying while it is still being saved.
func (b *dropBuyer) cancel(t *testing.T) {
	r := untilAnswered(func() e2etest.Reply {
		return b.s.Call(t, "POST", "/api/v1/orders/"+b.holds.id+"/cancel", b.token, nil)
	})
	if r.Status != 200 || r.Str("status") != "cancelled" {
		t.Errorf("%s cancelling %s: %d %s", b.user, b.holds.id, r.Status, r.Raw)
		return
	}
	b.tally.record(func() { b.tally.cancelled[b.holds.variant]++ })
	b.holds = heldOrder{}
}

// sells says whether the drop has size v.
func (b *dropBuyer) sells(v int64) bool {
	for _, id := range b.sizes {
		if id == v {
			return true
		}
	}
	return false
}
