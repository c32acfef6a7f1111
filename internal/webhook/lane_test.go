package webhook_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/internal/webhook"
)

// hangOn passes deliveries on to rcv, except that one whose n hang says
// is held until release closes (or the dispatcher hangs up).
func hangOn(t *testing.T, rcv *receiver, hang func(n int) bool, release <-chan struct{}) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var b struct{ Data struct{ N int } }
		_ = json.Unmarshal(raw, &b)
		if hang(b.Data.N) {
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(raw))
		rcv.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/hooks"
}

// TestSlowEventHoldsOnlyItsSubject: a receiver that hangs on one order's
// event, at the same endpoint as every other event, holds that order's
// later event and nothing else: the other subjects' events (more than a
// read of the outbox holds) are delivered while it hangs.
func TestSlowEventHoldsOnlyItsSubject(t *testing.T) {
	g := newRig(t)
	rcv := &receiver{t: t, ok: map[string]int{}, tries: map[string]int{}, answer: always(http.StatusNoContent)}
	release := make(chan struct{})
	url := hangOn(t, rcv, func(n int) bool { return n == -1 }, release)
	released := false
	t.Cleanup(func() {
		if !released {
			close(release)
		}
	})
	w := webhook.NewWriter([]string{url}, time.Now, time.Hour)
	slow := webhook.OrderSubject("slow")
	g.write(t, w, ev(webhook.OrderConfirmed, slow, -1))
	const n = 200
	for i := range n {
		g.write(t, w, ev(webhook.OrderConfirmed, webhook.OrderSubject(itoa(i)), i))
	}
	g.write(t, w, ev(webhook.OrderPaid, slow, -2))
	g.dispatch(t, webhook.DispatcherConfig{Timeout: time.Minute, Batch: 64})
	testenv.WaitFor(t, 10*time.Second, func() bool { return rcv.count() == n },
		"every other subject's event delivered while one hangs (%d events)", n)
	for _, b := range rcv.accepted() {
		if b.Data.(map[string]any)["n"].(float64) < 0 {
			t.Fatalf("an event of the hung order was delivered while its first one hangs: %v", b.Data)
		}
	}
	close(release)
	released = true
	testenv.WaitFor(t, 10*time.Second, func() bool { return rcv.count() == n+2 }, "the hung order's events delivered once released")
	all := rcv.accepted()
	if a, b := all[n].Data.(map[string]any)["n"], all[n+1].Data.(map[string]any)["n"]; a != -1.0 || b != -2.0 {
		t.Fatalf("the hung order's events arrived as %v, %v; want -1, -2", a, b)
	}
}
