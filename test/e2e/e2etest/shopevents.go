package e2etest

import (
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/testenv"
)

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
