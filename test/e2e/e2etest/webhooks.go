package e2etest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/internal/webhook"
)

// HookSecret signs the deliveries to the test receivers.
const HookSecret = "test-webhook-secret-0123456789abcdef"

// HookReceiver is a shop's webhook endpoint: it answers status (500 until
// told otherwise) and keeps the events it took with a valid signature,
// each once (receivers dedupe by id), in the order they came.
type HookReceiver struct {
	Srv    *httptest.Server
	Status atomic.Int32
	Mu     sync.Mutex
	Took   map[string]string // event id -> type, answered 2xx
	Events []HookEvent       // the events taken, in order
	Forged int
}

// HookEvent is an event as a receiver reads it.
type HookEvent struct {
	ID        string         `json:"id"`
	Type      string         `json:"type"`
	CreatedAt time.Time      `json:"created_at"`
	Data      map[string]any `json:"data"`
}

// NewHookReceiver is a receiver listening until tb ends.
func NewHookReceiver(tb testing.TB) *HookReceiver {
	tb.Helper()
	r := &HookReceiver{Took: map[string]string{}}
	r.Status.Store(http.StatusInternalServerError)
	r.Srv = httptest.NewServer(http.HandlerFunc(r.Serve))
	tb.Cleanup(r.Srv.Close)
	return r
}

func (r *HookReceiver) Serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	status := int(r.Status.Load())
	r.Mu.Lock()
	defer r.Mu.Unlock()
	if webhook.Verify([]byte(HookSecret), req.Header.Get(webhook.SignatureHeader), body, time.Now()) != nil {
		r.Forged++
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	var ev HookEvent
	if status/100 == 2 && json.Unmarshal(body, &ev) == nil && r.Took[ev.ID] == "" {
		r.Took[ev.ID] = ev.Type
		r.Events = append(r.Events, ev)
	}
	w.WriteHeader(status)
}

// Got returns the type of the event id the receiver took, "" if none.
func (r *HookReceiver) Got(id string) string {
	r.Mu.Lock()
	defer r.Mu.Unlock()
	return r.Took[id]
}

// Url is the endpoint with a password in it, which no admin page may show.
func (r *HookReceiver) URL() string {
	return strings.Replace(r.Srv.URL, "http://", "http://shop:hook-password@", 1) + "/seckill"
}

// HooksTo sends the server's events to r, giving up on a delivery after
// giveUp.
func HooksTo(r *HookReceiver, giveUp time.Duration) Option {
	return func(c *config.Config) {
		c.WebhookURLs, c.WebhookSecret, c.WebhookGiveUp = []string{r.URL()}, HookSecret, giveUp
	}
}

// PauseAndResume has the sale announce sale.paused then sale.resumed.
func (s *Server) PauseAndResume(tb testing.TB, id int64) {
	tb.Helper()
	for _, act := range []string{"pause", "resume"} {
		if r := s.Call(tb, "POST", "/api/v1/admin/items/"+Itoa(id)+"/"+act, AdminToken, nil); r.Status != 200 {
			tb.Fatalf("%s: %d %s", act, r.Status, r.Raw)
		}
	}
}

// Deliveries lists the outbox through the admin API.
func (s *Server) Deliveries(tb testing.TB, query string) (list []map[string]any, r Reply) {
	tb.Helper()
	r = s.Call(tb, "GET", "/api/v1/admin/webhooks"+query, AdminToken, nil)
	if r.Status != 200 {
		tb.Fatalf("list deliveries%s: %d %s", query, r.Status, r.Raw)
	}
	for _, d := range r.Body["deliveries"].([]any) {
		list = append(list, d.(map[string]any))
	}
	return list, r
}

// About returns the types of the events taken whose data has key =
// value, in the order they came.
func (r *HookReceiver) About(key string, value any) []string {
	r.Mu.Lock()
	defer r.Mu.Unlock()
	var out []string
	for _, e := range r.Events {
		if e.Data[key] == value {
			out = append(out, e.Type)
		}
	}
	return out
}

// First returns the data of the first event of type typ whose data has
// key = value.
func (r *HookReceiver) First(typ, key string, value any) map[string]any {
	r.Mu.Lock()
	defer r.Mu.Unlock()
	for _, e := range r.Events {
		if e.Type == typ && e.Data[key] == value {
			return e.Data
		}
	}
	return nil
}

func (r *HookReceiver) Await(t *testing.T, key string, value any, want ...string) {
	t.Helper()
	if !testenv.Eventually(10*time.Second, func() bool { return reflect.DeepEqual(r.About(key, value), want) }) {
		t.Fatalf("events about %s=%v: got %v, want %v", key, value, r.About(key, value), want)
	}
}

// AcceptingReceiver is a receiver that takes every event.
func AcceptingReceiver(tb testing.TB) *HookReceiver {
	r := NewHookReceiver(tb)
	r.Status.Store(http.StatusOK)
	return r
}
