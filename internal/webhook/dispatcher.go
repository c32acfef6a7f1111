package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/seckill/seckill/internal/ctxtime"
	"github.com/seckill/seckill/internal/sync/lock"
)

// Observer is told of every delivery attempt (metrics): result is
// "delivered", "retry" or "failed".
type Observer interface {
	WebhookAttempt(result string, took time.Duration)
}

// DispatcherConfig tunes a Dispatcher; zero values take the defaults.
type DispatcherConfig struct {
	Secret      []byte
	Timeout     time.Duration // one attempt; 10s
	Poll        time.Duration // how often an idle dispatcher looks for due events; 250ms
	Batch       int           // deliveries read at once; 64
	Concurrency int           // attempts in flight per endpoint; 16
	FirstRetry  time.Duration // the first retry's delay, doubled each attempt; 1s
	MaxRetry    time.Duration // the longest delay between attempts; 1h
}

// Dispatcher delivers the outbox. One server in the fleet delivers at a
// time (a Redis lock): events are then sent once in the normal case, and
// at least once when a server dies mid-delivery (its lock expires and
// another server sends what was not recorded delivered).
type Dispatcher struct {
	store  *Store
	locks  *lock.Locker
	client *http.Client
	cfg    DispatcherConfig
	obs    Observer
	log    *slog.Logger
}

// lockName is the fleet lock of delivery; lockTTL how long a dead
// holder keeps it.
const (
	lockName = "webhooks"
	lockTTL  = 15 * time.Second
)

// NewDispatcher returns a dispatcher over the outbox in store.
func NewDispatcher(store *Store, locks *lock.Locker, cfg DispatcherConfig, obs Observer, log *slog.Logger) *Dispatcher {
	cfg.Timeout = orDefault(cfg.Timeout, 10*time.Second)
	cfg.Poll = orDefault(cfg.Poll, 250*time.Millisecond)
	cfg.FirstRetry = orDefault(cfg.FirstRetry, time.Second)
	cfg.MaxRetry = orDefault(cfg.MaxRetry, time.Hour)
	if cfg.Batch <= 0 {
		cfg.Batch = 64
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 16
	}
	// As many idle connections kept per receiver as attempts run at once:
	// the default two would open (and, over TLS, handshake) a connection
	// for most deliveries of a backlog.
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = cfg.Concurrency
	client := &http.Client{
		Transport: transport,
		Timeout:   cfg.Timeout,
		// A redirect is an answer, not a delivery: the receiver's URL is
		// configured wrong, and following it would send the signed event
		// somewhere nobody chose.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return &Dispatcher{store: store, locks: locks, client: client, cfg: cfg, obs: obs, log: log}
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Run delivers while this server holds the delivery lock, and waits for it
// while another does, until ctx ends.
func (d *Dispatcher) Run(ctx context.Context) error {
	owner := lock.NewOwner()
	for ctx.Err() == nil {
		err := d.locks.Run(ctx, lockName, owner, lockTTL, d.deliver)
		switch {
		case ctx.Err() != nil:
		case errors.Is(err, lock.ErrNotObtained):
		case err != nil:
			d.log.Warn("webhooks: delivery stopped; retrying", "err", err)
		}
		_ = ctxtime.Sleep(ctx, time.Second+rand.N(time.Second))
	}
	return nil
}

// endpointScan is how often the delivering server looks for endpoints
// with events pending: the first event to an endpoint waits this long at
// most, the next ones only for Poll.
const endpointScan = time.Second

// deliver sends due events until ctx ends (shutdown, or the lock lost).
// Each endpoint has its own loop, so a receiver that hangs until the
// timeout delays only its own events.
func (d *Dispatcher) deliver(ctx context.Context) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	running := map[string]bool{}
	for ctx.Err() == nil {
		eps, err := d.store.endpoints(ctx)
		if err != nil && ctx.Err() == nil {
			d.log.Warn("webhooks: cannot list endpoints", "err", err)
		}
		for _, ep := range eps {
			if !running[ep] {
				running[ep] = true
				wg.Go(func() { d.deliverTo(ctx, ep) })
			}
		}
		_ = ctxtime.Sleep(ctx, endpointScan)
	}
	return nil
}

// attempt is what one delivery attempt got back.
type attempt struct {
	status int   // the receiver's HTTP status; 0 if none came
	err    error // nil: delivered
	took   time.Duration
}

func (d *Dispatcher) send(ctx context.Context, dl Delivery) attempt {
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, dl.Endpoint, bytes.NewReader(dl.Body))
	if err != nil {
		return attempt{err: err, took: time.Since(start)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "seckill-webhooks/1")
	req.Header.Set("X-Seckill-Event-Id", dl.EventID)
	req.Header.Set("X-Seckill-Event-Type", dl.Type)
	req.Header.Set(SignatureHeader, Sign(d.cfg.Secret, time.Now(), dl.Body))
	resp, err := d.client.Do(req)
	if err != nil {
		return attempt{err: err, took: time.Since(start)}
	}
	// Read a little so the connection can be reused; the answer says nothing.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	a := attempt{status: resp.StatusCode, took: time.Since(start)}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		a.err = fmt.Errorf("receiver answered %s", resp.Status)
	}
	return a
}

func (d *Dispatcher) record(ctx context.Context, due []Delivery, results []attempt) error {
	now := time.Now()
	ok := map[int][]int64{}
	var errs []error
	for i, a := range results {
		dl := due[i]
		if a.err == nil {
			ok[a.status] = append(ok[a.status], dl.Seq)
			d.observe("delivered", a.took)
			continue
		}
		next := now.Add(d.backoff(dl.Attempts + 1))
		result := "retry"
		if next.After(dl.GiveUpAt) {
			result = "failed"
			d.log.Error("webhooks: event not delivered; given up (re-send it from the dashboard)", "event_id", dl.EventID,
				"type", dl.Type, "endpoint", redact(dl.Endpoint), "attempts", dl.Attempts+1, "err", a.err)
		}
		d.observe(result, a.took)
		errs = append(errs, d.store.attemptFailed(ctx, dl, a.status, a.err.Error(), next))
	}
	for status, seqs := range ok {
		errs = append(errs, d.store.delivered(ctx, seqs, status, now))
	}
	return errors.Join(errs...)
}

func (d *Dispatcher) observe(result string, took time.Duration) {
	if d.obs != nil {
		d.obs.WebhookAttempt(result, took)
	}
}

// backoff is the delay before attempt n+1 after n failed ones: doubling
// from FirstRetry up to MaxRetry, with a fifth of jitter so the retries of
// a burst of events do not all land together.
func (d *Dispatcher) backoff(n int) time.Duration {
	delay := d.cfg.FirstRetry
	for i := 1; i < n && delay < d.cfg.MaxRetry; i++ {
		delay *= 2
	}
	delay = min(delay, d.cfg.MaxRetry)
	return delay - rand.N(delay/5+1)
}
