package fault

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/harness"
)

// StormConfig sizes a purchase storm.
type StormConfig struct {
	ItemID   int64
	Shoppers int
	Requests int     // shoppers are drawn at random, so most come back: duplicates
	Workers  int     // concurrent clients
	Rate     float64 // requests started per second; 0 means as fast as the workers go
	MaxQty   int     // shopper i asks for 1 + i%MaxQty units; 0 means 1
	Secret   string  // signs the shoppers' tokens
	Seed     uint64
	// Until, if set, keeps the storm going past Requests (at Rate, up to
	// four times as many) until it is closed: a test waits for a condition
	// rather than hoping a fixed length outlasts a recovery.
	Until <-chan struct{}
}

// Shopper is one shopper of a storm. Even-numbered shoppers send the same
// Idempotency-Key and the same variant on every attempt (their repeats are
// replays); the others send no key and ask for a variant drawn at random
// each time (their repeats are 409 already_purchased, whatever the mix).
type Shopper struct {
	User, Token, Key string
	Qty              int
	Variant          int64 // the one a shopper with a key always asks for
}

// Shoppers mints n shoppers' tokens. Shopper i asks for variants[(i/2) %
// len(variants)], so the shoppers with a key, and all of them, spread
// evenly over the variants.
func Shoppers(tb testing.TB, n, maxQty int, secret string, variants []int64) []Shopper {
	tb.Helper()
	out := make([]Shopper, n)
	for i := range out {
		user := "shopper" + strconv.Itoa(i)
		tok, err := MintToken(secret, user)
		if err != nil {
			tb.Fatal(err)
		}
		out[i] = Shopper{User: user, Token: tok, Qty: 1 + i%max(maxQty, 1), Variant: variants[(i/2)%len(variants)]}
		if i%2 == 0 {
			out[i].Key = "key-" + user
		}
	}
	return out
}

// Targets is the set of servers a storm spreads its requests over, as a
// load balancer would; a test takes a dead server out with Set.
type Targets struct {
	mu   sync.RWMutex
	urls []string
}

// NewTargets returns targets over the given base URLs.
func NewTargets(urls ...string) *Targets { return &Targets{urls: urls} }

// Set replaces the target list.
func (t *Targets) Set(urls ...string) { t.mu.Lock(); t.urls = urls; t.mu.Unlock() }

func (t *Targets) pick(n int) string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.urls[n%len(t.urls)]
}

// Event is the outcome of one request.
type Event struct {
	At      time.Time // when the answer (or the failure) came
	User    string
	Outcome string // "202", "202 replayed", "409 already_purchased", "503 unavailable", "no answer", ...
	OrderID string // of a 202, or the order a 409 already_purchased names
	Variant int64  // of a 202
	Err     string // why there was no answer
}

// Storm sends purchase requests in the background.
type Storm struct {
	cfg      StormConfig
	targets  *Targets
	shoppers []Shopper
	variants []int64
	client   *http.Client
	done     atomic.Int64
	mu       sync.Mutex
	events   []Event
	began    time.Time
	elapsed  time.Duration
	finished chan struct{}
}

// StartStorm reads the sale's variants, mints the shoppers and starts the
// storm.
func StartStorm(tb testing.TB, cfg StormConfig, targets *Targets) *Storm {
	tb.Helper()
	variants := saleVariants(tb, targets.pick(0), cfg.ItemID)
	s := &Storm{cfg: cfg, targets: targets, variants: variants,
		shoppers: Shoppers(tb, cfg.Shoppers, cfg.MaxQty, cfg.Secret, variants),
		client: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			MaxIdleConnsPerHost: cfg.Workers, IdleConnTimeout: 30 * time.Second}},
		events: make([]Event, 0, cfg.Requests), finished: make(chan struct{})}
	go s.run()
	tb.Cleanup(func() { <-s.finished; s.client.CloseIdleConnections() })
	return s
}

func (s *Storm) run() {
	defer close(s.finished)
	rng := rand.New(rand.NewPCG(s.cfg.Seed, 0x5eed))
	type job struct {
		n, shopper int
		variant    int64
	}
	jobs := make(chan job)
	var wg sync.WaitGroup
	s.began = time.Now()
	for range s.cfg.Workers {
		wg.Go(func() {
			for j := range jobs {
				ev := s.purchase(s.targets.pick(j.n), s.shoppers[j.shopper], j.variant)
				s.mu.Lock()
				s.events = append(s.events, ev)
				s.mu.Unlock()
				s.done.Add(1)
			}
		})
	}
	for n := 0; n < s.cfg.Requests || (s.going() && n < 4*s.cfg.Requests); n++ {
		if s.cfg.Rate > 0 {
			// A sleep is right here: the storm's rate is requests per second
			// of real time, like shoppers arriving; request n is due n/Rate
			// seconds after the start, whatever the server does meanwhile.
			time.Sleep(time.Until(s.began.Add(time.Duration(float64(n) / s.cfg.Rate * float64(time.Second)))))
		}
		sh := rng.IntN(s.cfg.Shoppers)
		v := s.variants[rng.IntN(len(s.variants))]
		if s.shoppers[sh].Key != "" {
			v = s.shoppers[sh].Variant
		}
		jobs <- job{n, sh, v}
	}
	close(jobs)
	wg.Wait()
	s.elapsed = time.Since(s.began)
}

func (s *Storm) purchase(base string, sh Shopper, variant int64) Event {
	api := harness.Client{Base: base, HTTP: s.client}
	var hdr []string
	if sh.Key != "" {
		hdr = []string{"Idempotency-Key", sh.Key}
	}
	path := "/api/v1/items/" + strconv.FormatInt(s.cfg.ItemID, 10) + "/purchase"
	// net/http itself resends a request carrying an Idempotency-Key once if a
	// reused connection dies before any byte of the answer: a retry with the
	// same key, as a shopper's own would be.
	r, err := api.Do(context.Background(), "POST", path, sh.Token, purchaseBody(variant, sh.Qty), hdr...)
	return eventOf(sh.User, r, err)
}

// purchaseBody is the body the shop's sale page sends.
func purchaseBody(variant int64, qty int) json.RawMessage {
	return json.RawMessage(`{"variant_id":` + strconv.FormatInt(variant, 10) + `,"quantity":` + strconv.Itoa(qty) + `}`)
}

func eventOf(user string, r harness.Reply, err error) Event {
	ev := Event{At: time.Now(), User: user}
	switch {
	case err != nil:
		ev.Outcome, ev.Err = "no answer", err.Error()
	case r.Status == http.StatusAccepted:
		ev.Outcome, ev.OrderID = "202", r.Str("order_id")
		v, _ := r.Body["variant_id"].(float64)
		ev.Variant = int64(v)
		if r.Header.Get("Idempotent-Replayed") == "true" {
			ev.Outcome = "202 replayed"
		}
	default:
		ev.Outcome = strconv.Itoa(r.Status) + " " + r.Code()
		if r.Code() == "already_purchased" {
			e, _ := r.Body["error"].(map[string]any)
			ev.OrderID, _ = e["order_id"].(string)
		}
	}
	return ev
}

// going reports whether the storm's Until is set and still open.
func (s *Storm) going() bool {
	if s.cfg.Until == nil {
		return false
	}
	select {
	case <-s.cfg.Until:
		return false
	default:
		return true
	}
}

// WaitEvent waits until a request answered after since had the outcome,
// and fails the test if none did within timeout.
func (s *Storm) WaitEvent(tb testing.TB, timeout time.Duration, since time.Time, outcome string) {
	tb.Helper()
	err := poll(timeout, 10*time.Millisecond, func() error {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, ev := range s.events {
			if ev.Outcome == outcome && ev.At.After(since) {
				return nil
			}
		}
		return fmt.Errorf("no %q since %s", outcome, since.Format(time.StampMilli))
	})
	if err != nil {
		tb.Fatalf("storm: %v", err)
	}
}

// Done is how many requests have been answered or have failed.
func (s *Storm) Done() int { return int(s.done.Load()) }

// WaitDone waits until n requests are done or the storm is over, polling
// every millisecond (faults are injected at a request count, so the count
// must not overshoot much). It fails the test if neither happens within a
// minute.
func (s *Storm) WaitDone(tb testing.TB, n int) {
	tb.Helper()
	err := poll(time.Minute, time.Millisecond, func() error {
		select {
		case <-s.finished:
			return nil
		default:
		}
		if done := s.Done(); done < n {
			return fmt.Errorf("%d of %d requests done", done, n)
		}
		return nil
	})
	if err != nil {
		tb.Fatalf("storm: %v", err)
	}
}

// Wait waits for the storm to end and returns what happened.
func (s *Storm) Wait() Result {
	<-s.finished
	s.mu.Lock()
	defer s.mu.Unlock()
	res := NewResult(s.events, s.shoppers)
	res.Elapsed = s.elapsed
	return res
}
