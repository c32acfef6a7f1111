package webhook_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/sync/lock"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/internal/webhook"
)

// receiver records what reaches it, checking each signature, and answers
// what answer says for each event.
type receiver struct {
	t      *testing.T
	mu     sync.Mutex
	got    []webhook.Body // accepted deliveries in arrival order
	ok     map[string]int // accepted deliveries per event id
	answer func(b webhook.Body, attempt int) int
	tries  map[string]int
}

func newReceiver(t *testing.T, answer func(webhook.Body, int) int) (*receiver, string) {
	r := &receiver{t: t, ok: map[string]int{}, tries: map[string]int{}, answer: answer}
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return r, srv.URL + "/hooks"
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	raw, _ := io.ReadAll(req.Body)
	if err := webhook.Verify(secret, req.Header.Get(webhook.SignatureHeader), raw, time.Now()); err != nil {
		r.t.Errorf("delivery with a bad signature: %v (%s)", err, raw)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	var b webhook.Body
	if err := json.Unmarshal(raw, &b); err != nil {
		r.t.Errorf("delivery is not an event: %v", err)
	}
	if req.Header.Get("X-Seckill-Event-Id") != b.ID || req.Header.Get("X-Seckill-Event-Type") != b.Type {
		r.t.Errorf("headers name %s %s, body %s %s", req.Header.Get("X-Seckill-Event-Id"), req.Header.Get("X-Seckill-Event-Type"), b.ID, b.Type)
	}
	r.mu.Lock()
	r.tries[b.ID]++
	status := r.answer(b, r.tries[b.ID])
	if status/100 == 2 {
		r.got = append(r.got, b)
		r.ok[b.ID]++
	}
	r.mu.Unlock()
	w.WriteHeader(status)
}

// accepted lists the accepted deliveries in the order they arrived.
func (r *receiver) accepted() []webhook.Body {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]webhook.Body(nil), r.got...)
}

func (r *receiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.ok)
}

func always(status int) func(webhook.Body, int) int {
	return func(webhook.Body, int) int { return status }
}

type rig struct {
	db    *gorm.DB
	store *webhook.Store
	locks *lock.Locker
}

func newRig(t *testing.T) rig {
	db := testenv.MySQL(t)
	rdb, prefix := testenv.Redis(t)
	return rig{db: db.Gorm, store: webhook.NewStore(db.Gorm), locks: lock.New(rdb, prefix)}
}

// write adds evs through a writer to endpoints, in one transaction.
func (g rig) write(t *testing.T, w *webhook.Writer, evs ...webhook.Event) {
	t.Helper()
	if err := g.db.Transaction(func(tx *gorm.DB) error { return w.Add(tx, evs...) }); err != nil {
		t.Fatal(err)
	}
}

func (g rig) dispatch(t *testing.T, cfg webhook.DispatcherConfig) {
	t.Helper()
	cfg.Secret = secret
	cfg.Poll = 20 * time.Millisecond
	cfg.FirstRetry = orDefault(cfg.FirstRetry, 50*time.Millisecond)
	d := webhook.NewDispatcher(g.store, g.locks, cfg, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); d.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

func ev(typ, subject string, n int) webhook.Event {
	return webhook.Event{Type: typ, Subject: subject, Data: map[string]int{"n": n}}
}

// TestDeliversInOrderPerSubject: an event the receiver refuses is retried,
// and the later events of its subject wait for it while other subjects'
// go on.
func TestDeliversInOrderPerSubject(t *testing.T) {
	g := newRig(t)
	rcv, url := newReceiver(t, func(b webhook.Body, attempt int) int {
		if b.Type == webhook.OrderConfirmed && attempt < 3 && b.Data.(map[string]any)["n"] == 1.0 {
			return http.StatusServiceUnavailable
		}
		return http.StatusNoContent
	})
	w := webhook.NewWriter([]string{url}, time.Now, 0)
	g.write(t, w, ev(webhook.OrderConfirmed, webhook.OrderSubject("A"), 1), ev(webhook.OrderConfirmed, webhook.OrderSubject("B"), 2))
	g.write(t, w, ev(webhook.OrderPaid, webhook.OrderSubject("A"), 3))
	g.write(t, w, ev(webhook.OrderCancelled, webhook.OrderSubject("B"), 4))
	g.dispatch(t, webhook.DispatcherConfig{})
	testenv.WaitFor(t, 10*time.Second, func() bool { return rcv.count() == 4 }, "4 events accepted; got %d", rcv.count())
	var order []float64
	for _, b := range rcv.accepted() {
		order = append(order, b.Data.(map[string]any)["n"].(float64))
	}
	pos := map[float64]int{}
	for i, n := range order {
		pos[n] = i
	}
	if pos[1] > pos[3] || pos[2] > pos[4] {
		t.Fatalf("a subject's events out of order: accepted %v", order)
	}
	if pos[2] > pos[1] {
		t.Fatalf("order B waited for order A's refused event: accepted %v", order)
	}
	var ds []webhook.Delivery
	testenv.WaitFor(t, 10*time.Second, func() bool {
		ds, _ = g.store.List(context.Background(), webhook.StateDelivered, 0, 10)
		return len(ds) == 4
	}, "4 deliveries recorded")
	for _, d := range ds {
		want := 1
		if nOf(t, d.Body) == 1 {
			want = 3
		}
		if d.Attempts != want || d.LastStatus == nil || *d.LastStatus != http.StatusNoContent {
			t.Errorf("delivery %d (%s): attempts %d, last status %v; want %d attempts, 204", d.Seq, d.Type, d.Attempts, d.LastStatus, want)
		}
	}
}

func nOf(t *testing.T, body []byte) int {
	var b struct{ Data struct{ N int } }
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	return b.Data.N
}

// TestGivesUpThenResends: a receiver that never takes an event has it
// marked failed when its give-up time passes; re-sent, it is delivered.
func TestGivesUpThenResends(t *testing.T) {
	g := newRig(t)
	var mu sync.Mutex
	status := http.StatusInternalServerError
	rcv, url := newReceiver(t, func(webhook.Body, int) int { mu.Lock(); defer mu.Unlock(); return status })
	w := webhook.NewWriter([]string{url}, time.Now, 300*time.Millisecond)
	g.write(t, w, ev(webhook.SaleEnded, webhook.SaleSubject(7), 1))
	g.dispatch(t, webhook.DispatcherConfig{})
	ctx := context.Background()
	var failed []webhook.Delivery
	testenv.WaitFor(t, 10*time.Second, func() bool {
		failed, _ = g.store.List(ctx, webhook.StateFailed, 0, 10)
		return len(failed) == 1
	}, "the event marked failed")
	f := failed[0]
	if f.Attempts < 2 || f.LastStatus == nil || *f.LastStatus != 500 || f.LastError == nil {
		t.Fatalf("failed delivery: attempts %d, status %v, error %v", f.Attempts, f.LastStatus, f.LastError)
	}
	if st, err := g.store.Stats(ctx); err != nil || st.Failed != 1 || st.Pending != 0 {
		t.Fatalf("stats %+v, %v", st, err)
	}
	mu.Lock()
	status = http.StatusOK
	mu.Unlock()
	if _, err := g.store.Resend(ctx, f.Seq, time.Now(), time.Minute); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, 10*time.Second, func() bool { return rcv.count() == 1 }, "the re-sent event accepted")
	// Recorded once the receiver has answered.
	testenv.WaitFor(t, 10*time.Second, func() bool {
		d, err := g.store.Get(ctx, f.Seq)
		return err == nil && d.State == webhook.StateDelivered && d.DeliveredAt != nil
	}, "the re-sent event recorded delivered")
}

// TestRedirectIsNotDelivery: a receiver's redirect is not followed; the
// event stays owed.
func TestRedirectIsNotDelivery(t *testing.T) {
	g := newRig(t)
	elsewhere, elsewhereURL := newReceiver(t, always(http.StatusOK))
	redirect := httptest.NewServer(http.RedirectHandler(elsewhereURL, http.StatusTemporaryRedirect))
	t.Cleanup(redirect.Close)
	w := webhook.NewWriter([]string{redirect.URL}, time.Now, time.Hour)
	g.write(t, w, ev(webhook.SalePaused, webhook.SaleSubject(1), 1))
	g.dispatch(t, webhook.DispatcherConfig{})
	ctx := context.Background()
	testenv.WaitFor(t, 10*time.Second, func() bool {
		ds, _ := g.store.List(ctx, webhook.StatePending, 0, 1)
		return len(ds) == 1 && ds[0].Attempts >= 1
	}, "an attempt recorded")
	ds, _ := g.store.List(ctx, "", 0, 1)
	if ds[0].State != webhook.StatePending || *ds[0].LastStatus != http.StatusTemporaryRedirect || elsewhere.count() != 0 {
		t.Fatalf("redirected delivery: state %s status %v; the redirect's target got %d", ds[0].State, ds[0].LastStatus, elsewhere.count())
	}
}

// TestServersDeliverEachEventOnce: three dispatchers (three servers) share
// the outbox; each event reaches each endpoint once.
func TestServersDeliverEachEventOnce(t *testing.T) {
	g := newRig(t)
	rcvA, urlA := newReceiver(t, always(http.StatusOK))
	rcvB, urlB := newReceiver(t, always(http.StatusAccepted))
	w := webhook.NewWriter([]string{urlA, urlB}, time.Now, time.Hour)
	for range 3 {
		g.dispatch(t, webhook.DispatcherConfig{Batch: 16})
	}
	const n = 300
	for i := range n {
		g.write(t, w, ev(webhook.OrderConfirmed, webhook.OrderSubject(string(rune('a'+i%26))+itoa(i)), i))
	}
	testenv.WaitFor(t, 30*time.Second, func() bool { return rcvA.count() == n && rcvB.count() == n },
		"every event at both endpoints; got %d and %d", rcvA.count(), rcvB.count())
	for _, r := range []*receiver{rcvA, rcvB} {
		r.mu.Lock()
		for id, k := range r.ok {
			if k != 1 {
				t.Errorf("event %s delivered %d times", id, k)
			}
		}
		r.mu.Unlock()
	}
}

func itoa(i int) string { return fmt.Sprint(i) }

// TestHangingReceiverDelaysOnlyItsOwn: a receiver that never answers holds
// its own events until the attempt times out, and no one else's.
func TestHangingReceiverDelaysOnlyItsOwn(t *testing.T) {
	g := newRig(t)
	// The body is read first: only then does the server notice the client
	// hanging up, which ends the request's context.
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}))
	t.Cleanup(hang.Close)
	healthy, url := newReceiver(t, always(http.StatusOK))
	w := webhook.NewWriter([]string{hang.URL, url}, time.Now, time.Hour)
	const n = 100
	for i := range n {
		g.write(t, w, ev(webhook.OrderConfirmed, webhook.OrderSubject(itoa(i)), i))
	}
	g.dispatch(t, webhook.DispatcherConfig{Timeout: time.Minute})
	testenv.WaitFor(t, 10*time.Second, func() bool { return healthy.count() == n },
		"the healthy receiver got %d of %d while the other hangs", healthy.count(), n)
}

// TestBlockedEventsWaitWithTheirHead: while a subject's first event is
// being retried, its later events are not due before its next attempt, so
// the dispatcher does not read them round after round.
func TestBlockedEventsWaitWithTheirHead(t *testing.T) {
	g := newRig(t)
	_, url := newReceiver(t, always(http.StatusServiceUnavailable))
	w := webhook.NewWriter([]string{url}, time.Now, time.Hour)
	g.write(t, w, ev(webhook.OrderConfirmed, webhook.OrderSubject("A"), 1))
	g.write(t, w, ev(webhook.OrderPaid, webhook.OrderSubject("A"), 2))
	g.dispatch(t, webhook.DispatcherConfig{FirstRetry: time.Minute})
	ctx := context.Background()
	var ds []webhook.Delivery
	testenv.WaitFor(t, 10*time.Second, func() bool {
		ds, _ = g.store.List(ctx, webhook.StatePending, 0, 2)
		return len(ds) == 2 && ds[1].Attempts == 1
	}, "the first event's attempt recorded")
	head, later := ds[1], ds[0]
	if later.Attempts != 0 || later.NextAttemptAt.Before(head.NextAttemptAt) || !later.NextAttemptAt.After(time.Now()) {
		t.Fatalf("the blocked event is due at %v, its head at %v (now %v)", later.NextAttemptAt, head.NextAttemptAt, time.Now())
	}
}

// TestReceiverWordsAreKept: whatever a receiver says in its status line
// (here a reason phrase that is not UTF-8) is recorded, so the attempt
// counts and the event backs off instead of being sent again at once.
func TestReceiverWordsAreKept(t *testing.T) {
	g := newRig(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					_, _ = io.Copy(io.Discard, req.Body)
					_, _ = c.Write([]byte("HTTP/1.1 503 Service indisponible \xe9t\xe9\r\nContent-Length: 0\r\n\r\n"))
				}
			}()
		}
	}()
	w := webhook.NewWriter([]string{"http://" + ln.Addr().String() + "/hooks"}, time.Now, time.Hour)
	g.write(t, w, ev(webhook.SaleEnded, webhook.SaleSubject(1), 1))
	g.dispatch(t, webhook.DispatcherConfig{FirstRetry: time.Minute})
	var d webhook.Delivery
	testenv.WaitFor(t, 10*time.Second, func() bool {
		ds, _ := g.store.List(context.Background(), "", 0, 1)
		d = ds[0]
		return d.Attempts == 1
	}, "the attempt recorded")
	if d.LastStatus == nil || *d.LastStatus != 503 || d.LastError == nil || !strings.Contains(*d.LastError, "Service indisponible") {
		t.Fatalf("recorded status %v, error %v", d.LastStatus, d.LastError)
	}
}

// TestPruneKeepsWhatIsOwed: pruning deletes deliveries made or given up on
// before the cut, never one still pending however old.
func TestPruneKeepsWhatIsOwed(t *testing.T) {
	g := newRig(t)
	w := webhook.NewWriter([]string{"http://127.0.0.1:9/hooks"}, time.Now, time.Hour)
	for i := range 4 {
		g.write(t, w, ev(webhook.OrderConfirmed, webhook.OrderSubject(itoa(i)), i))
	}
	// seq 1 delivered and 2 failed a week ago, 3 pending as long, 4 delivered now.
	weekAgo := time.Now().Add(-8 * 24 * time.Hour)
	for _, q := range []struct {
		seq   int
		state string
		at    time.Time
	}{{1, webhook.StateDelivered, weekAgo}, {2, webhook.StateFailed, weekAgo}, {3, webhook.StatePending, weekAgo}, {4, webhook.StateDelivered, time.Now()}} {
		if err := g.db.Exec("UPDATE outbox SET state = ?, next_attempt_at = ? WHERE seq = ?", q.state, q.at, q.seq).Error; err != nil {
			t.Fatal(err)
		}
	}
	n, err := g.store.Prune(context.Background(), time.Now().Add(-7*24*time.Hour), 100)
	if err != nil || n != 2 {
		t.Fatalf("pruned %d, %v; want 2", n, err)
	}
	left, _ := g.store.List(context.Background(), "", 0, 10)
	var seqs []int64
	for _, d := range left {
		seqs = append(seqs, d.Seq)
	}
	if fmt.Sprint(seqs) != "[4 3]" {
		t.Fatalf("left %v; want [4 3]", seqs)
	}
}
