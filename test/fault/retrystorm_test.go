package fault

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/harness"
)

// RetryConfig sizes a storm of impatient shoppers.
type RetryConfig struct {
	ItemID     int64
	Shoppers   int
	Workers    int           // shoppers served at once
	MinTimeout time.Duration // the client timeout of an eager attempt is drawn from [MinTimeout, MaxTimeout]
	MaxTimeout time.Duration
	Eager      int // attempts with such timeouts; later ones double it, so everyone gets an answer
	Secret     string
	Seed       uint64
}

// RetryResult is what the impatient shoppers saw. Result counts every
// attempt; its Acked holds the 202 each shopper finally got.
type RetryResult struct {
	Result
	TimedOut    int // attempts given up by the client
	MaxAttempts int // the most attempts one shopper needed
	GaveUp      []string
}

// RetryUntilAnswered has every shopper buy once from base. Each attempt
// carries the shopper's one Idempotency-Key and a client timeout so short
// that many attempts are abandoned after the server reserved; the shopper
// retries until an attempt gets a final answer (anything but a timeout or
// 503), at most 100 attempts.
func RetryUntilAnswered(tb testing.TB, base string, cfg RetryConfig) RetryResult {
	tb.Helper()
	shoppers := Shoppers(tb, cfg.Shoppers, 1, cfg.Secret, saleVariants(tb, base, cfg.ItemID))
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: cfg.Workers}}
	defer client.CloseIdleConnections()
	api := &harness.Client{Base: base, HTTP: client}
	var (
		mu     sync.Mutex
		events []Event
		out    RetryResult
	)
	next := make(chan int)
	var wg sync.WaitGroup
	began := time.Now()
	for w := range cfg.Workers {
		rng := rand.New(rand.NewPCG(cfg.Seed, uint64(w)))
		wg.Go(func() {
			for i := range next {
				sh := shoppers[i]
				sh.Key = "key-" + sh.User // every shopper retries with its key
				evs := buyPatiently(api, cfg, rng, sh)
				mu.Lock()
				events = append(events, evs...)
				out.MaxAttempts = max(out.MaxAttempts, len(evs))
				if last := evs[len(evs)-1]; !final(last) {
					out.GaveUp = append(out.GaveUp, sh.User)
				}
				mu.Unlock()
			}
		})
	}
	for i := range shoppers {
		next <- i
	}
	close(next)
	wg.Wait()
	out.Result = NewResult(events, shoppers)
	out.Elapsed = time.Since(began)
	for _, ev := range events {
		if isTimeout(ev.Err) {
			out.TimedOut++
		}
	}
	return out
}

func buyPatiently(api *harness.Client, cfg RetryConfig, rng *rand.Rand, sh Shopper) []Event {
	path := "/api/v1/items/" + strconv.FormatInt(cfg.ItemID, 10) + "/purchase"
	var evs []Event
	timeout := cfg.MaxTimeout
	for attempt := range 100 {
		if attempt < cfg.Eager {
			timeout = cfg.MinTimeout + time.Duration(rng.Int64N(int64(cfg.MaxTimeout-cfg.MinTimeout)+1))
		} else {
			timeout = min(2*timeout, 2*time.Second)
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		r, err := api.Do(ctx, "POST", path, sh.Token, purchaseBody(sh.Variant, sh.Qty), "Idempotency-Key", sh.Key)
		cancel()
		ev := eventOf(sh.User, r, err)
		evs = append(evs, ev)
		if final(ev) {
			break
		}
	}
	return evs
}

// final tells an answer a shopper accepts from one it retries.
func final(ev Event) bool { return ev.Outcome != "no answer" && !strings.HasPrefix(ev.Outcome, "503") }

func isTimeout(err string) bool {
	return strings.Contains(err, "deadline exceeded") || strings.Contains(err, "Timeout")
}
