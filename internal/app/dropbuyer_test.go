package app_test

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// dropBuyer is one shopper of the drop storm. It knows what it holds, so it
// can tell every answer it gets right from wrong.
type dropBuyer struct {
	s              *server
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
		r := b.s.buyVariant(t, b.item, v, b.token, key)
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
func (b *dropBuyer) judge(t *testing.T, v int64, key string, r reply) {
	switch outcomeOf(r) {
	case "202":
		if b.holds.id != "" || int64(num(r.body, "variant_id")) != v {
			t.Errorf("%s holding %q bought size %d: %s", b.user, b.holds.id, v, r.raw)
		}
		b.holds = heldOrder{r.str("order_id"), v}
		if key != "" {
			b.replay(t, v, key)
		}
		if b.cancels {
			b.cancels = false
			b.cancel(t)
		}
	case "409 already_purchased":
		if e, _ := r.body["error"].(map[string]any); b.holds.id == "" || e["order_id"] != b.holds.id {
			t.Errorf("%s holding %q: %s", b.user, b.holds.id, r.raw)
		}
	case "410 sold_out":
		e, _ := r.body["error"].(map[string]any)
		avail, ok := e["available_variants"].([]any)
		for _, a := range avail {
			if f, _ := a.(float64); int64(f) == v || !b.sells(int64(f)) {
				t.Errorf("%s asking for size %d is offered %v: %s", b.user, v, a, r.raw)
			}
		}
		if !ok {
			t.Errorf("%s asking for size %d: sold out without available_variants: %s", b.user, v, r.raw)
		}
		if len(avail) > 0 {
			b.tally.record(func() { b.tally.offered++ })
		}
	case "503 unavailable":
	default:
		t.Errorf("%s asking for size %d: %d %s", b.user, v, r.status, r.raw)
	}
}

// replay retries the purchase just made with its Idempotency-Key, as a
// client that lost the answer would: it must get the same order back,
// whatever happened to the size or the drop meanwhile, even from a server
// whose marks and admission gate say sold out.
func (b *dropBuyer) replay(t *testing.T, v int64, key string) {
	r := untilAnswered(func() reply { return b.s.buyVariant(t, b.item, v, b.token, key) })
	b.tally.record(func() { b.tally.outcomes[outcomeOf(r)]++ })
	if outcomeOf(r) != "202 replayed" || r.str("order_id") != b.holds.id || int64(num(r.body, "variant_id")) != v {
		t.Errorf("%s retrying key %s of order %s (size %d): %d %s", b.user, key, b.holds.id, v, r.status, r.raw)
	}
}

// cancel cancels the order held, retrying while it is still being saved.
func (b *dropBuyer) cancel(t *testing.T) {
	r := untilAnswered(func() reply {
		return b.s.call(t, "POST", "/api/v1/orders/"+b.holds.id+"/cancel", b.token, nil)
	})
	if r.status != 200 || r.str("status") != "cancelled" {
		t.Errorf("%s cancelling %s: %d %s", b.user, b.holds.id, r.status, r.raw)
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
