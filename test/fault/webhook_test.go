package fault

import (
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/harness"
	"github.com/seckill/seckill/internal/webhook"
)

const hookSecret = "fault-webhook-secret-0123456789abcdef"

// hookSink is the shop's receiver: it checks every delivery's signature
// and counts deliveries per event id. After the first `open` deliveries
// it holds every further one (its request unanswered) until released, so
// deliveries are certainly in flight when the server dies.
type hookSink struct {
	t       testing.TB
	open    int
	release chan struct{}
	mu      sync.Mutex
	seen    map[string]int
	held    int // deliveries being held now
	bad     int
}

func newHookSink(t testing.TB, open int) (*hookSink, string) {
	k := &hookSink{t: t, open: open, release: make(chan struct{}), seen: map[string]int{}}
	srv := httptest.NewServer(k)
	t.Cleanup(srv.Close)
	return k, srv.URL + "/seckill-events"
}

func (k *hookSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	if err := webhook.Verify([]byte(hookSecret), r.Header.Get(webhook.SignatureHeader), raw, time.Now()); err != nil {
		k.mu.Lock()
		k.bad++
		k.mu.Unlock()
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	var ev struct{ ID string }
	_ = json.Unmarshal(raw, &ev)
	k.mu.Lock()
	hold := len(k.seen) >= k.open
	if hold {
		k.held++
	}
	k.mu.Unlock()
	if hold {
		select {
		case <-k.release:
		case <-r.Context().Done(): // the server died with this delivery unanswered
			k.mu.Lock()
			k.held--
			k.mu.Unlock()
			return
		}
		k.mu.Lock()
		k.held--
		k.mu.Unlock()
	}
	k.mu.Lock()
	k.seen[ev.ID]++
	k.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

func (k *hookSink) holding() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.held
}

func (k *hookSink) distinct() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.seen)
}

// TestKill9MidDelivery kill -9s the only server during a storm, while it
// persists orders and delivers their events to a real receiver, and
// restarts it. Every event in the outbox reaches the receiver at least
// once with a valid signature, every persisted order has exactly one
// order.confirmed event (none for an order MySQL does not have), and the
// sell-out is announced.
func TestKill9MidDelivery(t *testing.T) {
	s := NewSetup(t, env)
	sink, url := newHookSink(t, 100)
	s.Extra = append(s.Extra, "SECKILL_WEBHOOK_URL="+url, "SECKILL_WEBHOOK_SECRET="+hookSecret)
	srv, db, _, id, _, cfg, storm := stormOn(t, s, 9, env.Redises()[0].Redis)

	err := harness.Poll(t.Context(), 30*time.Second, 5*time.Millisecond, func() error {
		if sink.holding() == 0 {
			return errNotYet
		}
		return nil
	})
	if err != nil {
		t.Fatalf("no deliveries under way: %v (%d received)", err, sink.distinct())
	}
	received, held, pending := sink.distinct(), sink.holding(), pendingEvents(t, db)
	dead := srv.Pid()
	srv.Kill9(t)
	restart := srv.Up(t)
	close(sink.release)
	t.Logf("injected: kill -9 of the server (pid %d) with %d events received, %d deliveries in flight and %d pending; restarted in %v",
		dead, received, held, pending, restart.Round(time.Millisecond))

	res := storm.Wait()
	logStorm(t, cfg, res)
	rep := Verify(t, db, srv.API, id, res)
	err = harness.Poll(t.Context(), 60*time.Second, 20*time.Millisecond, func() error {
		if pendingEvents(t, db) > 0 {
			return errNotYet
		}
		return nil
	})
	if err != nil {
		t.Fatalf("events still pending a minute after the storm: %d", pendingEvents(t, db))
	}

	events := outboxEvents(t, db)
	sink.mu.Lock()
	defer sink.mu.Unlock()
	again := 0
	for eid, e := range events {
		switch n := sink.seen[eid]; {
		case n == 0:
			t.Errorf("event %s (%s, %s) never reached the receiver (state %s)", eid, e.typ, e.subject, e.state)
		case n > 1:
			again += n - 1
		}
	}
	if sink.bad > 0 {
		t.Errorf("%d deliveries had a bad signature", sink.bad)
	}
	confirmed := map[string]int{}
	soldOut := 0
	for _, e := range events {
		switch e.typ {
		case webhook.OrderConfirmed:
			confirmed[e.subject]++
		case webhook.SaleSoldOut:
			soldOut++
		}
	}
	orders := orderIDs(t, db, id)
	for _, oid := range orders {
		if n := confirmed[webhook.OrderSubject(oid)]; n != 1 {
			t.Errorf("order %s has %d order.confirmed events, want 1", oid, n)
		}
		delete(confirmed, webhook.OrderSubject(oid))
	}
	for subject := range confirmed {
		t.Errorf("order.confirmed for %s, which MySQL does not have", subject)
	}
	if rep.Stats.StockMySQL == 0 && soldOut == 0 {
		t.Error("the sale sold out and no sale.sold_out was written")
	}
	t.Logf("%d orders, %d events, all delivered; %d deliveries repeated after the crash (receivers dedupe by id)",
		len(orders), len(events), again)
}

var errNotYet = errorString("not yet")

type errorString string

func (e errorString) Error() string { return string(e) }

func pendingEvents(t testing.TB, db *sql.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM outbox WHERE state <> 'delivered'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

type outboxEvent struct{ typ, subject, state string }

func outboxEvents(t testing.TB, db *sql.DB) map[string]outboxEvent {
	t.Helper()
	rows, err := db.Query("SELECT event_id, type, subject, state FROM outbox")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]outboxEvent{}
	for rows.Next() {
		var id string
		var e outboxEvent
		if err := rows.Scan(&id, &e.typ, &e.subject, &e.state); err != nil {
			t.Fatal(err)
		}
		out[id] = e
	}
	return out
}

func orderIDs(t testing.TB, db *sql.DB, itemID int64) []string {
	t.Helper()
	rows, err := db.Query("SELECT id FROM orders WHERE item_id = ?", itemID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	return out
}
