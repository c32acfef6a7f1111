package fault

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Result is what a storm's shoppers saw.
type Result struct {
	Requests  int
	Elapsed   time.Duration
	Outcomes  map[string]int    // outcome -> requests
	Acked     map[string]string // user -> the order id its 202s carried
	Named     map[string]string // user -> the order id its 409 already_purchased named
	Qty       map[string]int    // user -> the quantity it asked for
	Variant   map[string]int64  // user -> the variant its 202s named
	Conflicts []string          // users told about two different orders
	Events    []Event
	NoAnswer  []string // a few reasons requests got no answer
}

// NewResult sums events up. A shopper must never be told about two
// different orders (by 202s or 409s); each such case is a Conflict.
func NewResult(events []Event, shoppers []Shopper) Result {
	r := Result{Requests: len(events), Outcomes: map[string]int{}, Acked: map[string]string{},
		Named: map[string]string{}, Qty: map[string]int{}, Variant: map[string]int64{}, Events: events}
	for _, sh := range shoppers {
		r.Qty[sh.User] = sh.Qty
	}
	seen := map[string]string{}
	for _, ev := range events {
		r.Outcomes[ev.Outcome]++
		if ev.Err != "" && len(r.NoAnswer) < 3 {
			r.NoAnswer = append(r.NoAnswer, ev.Err)
		}
		if ev.OrderID == "" {
			continue
		}
		if prev, ok := seen[ev.User]; ok && prev != ev.OrderID {
			r.Conflicts = append(r.Conflicts, fmt.Sprintf("%s: %s and %s", ev.User, prev, ev.OrderID))
		}
		seen[ev.User] = ev.OrderID
		if strings.HasPrefix(ev.Outcome, "202") {
			r.Acked[ev.User], r.Variant[ev.User] = ev.OrderID, ev.Variant
		} else {
			r.Named[ev.User] = ev.OrderID
		}
	}
	return r
}

// Count is the number of requests whose outcome starts with prefix.
func (r Result) Count(prefix string) int {
	n := 0
	for k, v := range r.Outcomes {
		if strings.HasPrefix(k, prefix) {
			n += v
		}
	}
	return n
}

// CountIn is the number of requests answered in [from, to) whose outcome
// is exactly outcome.
func (r Result) CountIn(from, to time.Time, outcome string) int {
	n := 0
	for _, ev := range r.Events {
		if ev.Outcome == outcome && !ev.At.Before(from) && ev.At.Before(to) {
			n++
		}
	}
	return n
}

// AnsweredIn is the number of requests that got an HTTP answer in [from, to).
func (r Result) AnsweredIn(from, to time.Time) int {
	n := 0
	for _, ev := range r.Events {
		if ev.Err == "" && !ev.At.Before(from) && ev.At.Before(to) {
			n++
		}
	}
	return n
}

// Summary lists the outcomes, e.g. "202: 800, 409 already_purchased: 412".
func (r Result) Summary() string {
	keys := make([]string, 0, len(r.Outcomes))
	for k := range r.Outcomes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, r.Outcomes[k])
	}
	return strings.Join(parts, ", ")
}

// Unexpected lists outcomes a healthy server never gives in a storm: any
// 5xx other than 503 unavailable or replication_timeout (a replica out of
// reach), and client errors other than sold out and already purchased.
func (r Result) Unexpected() []string {
	var out []string
	for k, v := range r.Outcomes {
		switch {
		case strings.HasPrefix(k, "202"), k == "409 already_purchased", k == "410 sold_out",
			k == "503 unavailable", k == "503 replication_timeout", k == "no answer":
		default:
			out = append(out, fmt.Sprintf("%s: %d", k, v))
		}
	}
	sort.Strings(out)
	return out
}
