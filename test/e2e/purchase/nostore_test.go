package purchase

import (
	"net/http"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/httpapi"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestPrivateAnswersAreNotStored walks every route whose answer carries a
// token or a shopper's data, as a shopper or the admin uses it: each answer,
// refusals included, says Cache-Control: no-store. The public sale answers
// stay cacheable.
func TestPrivateAnswersAreNotStored(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0))
	id := s.Sale(t, 10, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	roomID := e2etest.RoomSale(t, s, 10, 5, e2etest.T0)
	item, room := "/api/v1/items/"+e2etest.Itoa(id), "/api/v1/items/"+e2etest.Itoa(roomID)+"/room"
	shopper, other := s.Login(t, "ns-shopper"), s.Login(t, "ns-other")
	first := s.Call(t, "POST", item+"/purchase", shopper, nil, "Idempotency-Key", "ns-1")
	e2etest.Check(t, first, e2etest.Want{Status: 202})
	second := s.Call(t, "POST", item+"/purchase", other, nil)
	e2etest.Check(t, second, e2etest.Want{Status: 202})
	s.Settle(t, id)
	mine, theirs := "/api/v1/orders/"+first.Str("order_id"), "/api/v1/orders/"+second.Str("order_id")
	origin := []string{"Origin", "http://" + s.Addr}
	private := []struct {
		method, path, auth string
		body               any
		status             int
		hdr                []string
	}{
		{"POST", "/api/v1/session", "", `{"user_id":"ns-new"}`, 200, nil},
		{"GET", "/api/v1/session", shopper, nil, 200, nil},
		{"GET", "/api/v1/session", "", nil, 401, nil},
		{"DELETE", "/api/v1/session", "", nil, 204, nil},
		{"POST", "/api/v1/admin/session", "", `{"token":"` + e2etest.AdminToken + `"}`, 200, origin},
		{"POST", "/api/v1/admin/session", "", `{"token":"wrong-admin-token-0123"}`, 401, origin},
		{"GET", "/api/v1/admin/session", e2etest.AdminToken, nil, 200, nil},
		{"DELETE", "/api/v1/admin/session", "", nil, 204, nil},
		{"GET", item + "/purchase-token", shopper, nil, 200, nil},
		{"POST", item + "/purchase", shopper, nil, 202, []string{"Idempotency-Key", "ns-1"}},
		{"POST", item + "/purchase", s.Login(t, "ns-third"), nil, 202, nil},
		{"POST", "/api/v1/items/" + e2etest.Itoa(roomID) + "/challenge", shopper, nil, 200, nil},
		{"POST", room, shopper, nil, 403, nil}, // no proof of work
		{"POST", room, shopper, nil, 200, []string{httpapi.ProofOfWorkHeader, s.Proof(t, roomID, shopper)}},
		{"GET", room, shopper, nil, 200, nil},
		{"GET", "/api/v1/orders", shopper, nil, 200, nil},
		{"GET", "/api/v1/orders", "", nil, 401, nil},
		{"GET", mine, shopper, nil, 200, nil},
		{"POST", mine + "/pay", shopper, nil, 200, nil},
		{"POST", theirs + "/cancel", other, nil, 200, nil},
		{"GET", "/api/v1/admin/items/" + e2etest.Itoa(id) + "/stats", e2etest.AdminToken, nil, 200, nil},
		{"GET", "/api/v1/admin/reconcile", e2etest.AdminToken, nil, 200, nil},
		{"POST", "/api/v1/admin/items/" + e2etest.Itoa(id) + "/warm", e2etest.AdminToken, nil, 200, nil},
		{"PATCH", "/api/v1/admin/items/" + e2etest.Itoa(id), e2etest.AdminToken, `{"name":"Renamed"}`, 200, nil},
		{"GET", "/api/v1/admin/items/" + e2etest.Itoa(id) + "/stats", "", nil, 401, nil},
	}
	for _, tc := range private {
		r := s.Call(t, tc.method, tc.path, tc.auth, tc.body, tc.hdr...)
		if r.Status != tc.status || r.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s %s: %d with Cache-Control %q, want %d with no-store (%s)", tc.method, tc.path, r.Status,
				r.Header.Get("Cache-Control"), tc.status, r.Raw)
		}
	}
	for _, p := range []string{"/api/v1/orders/" + first.Str("order_id") + "/events", "/api/v1/admin/events"} {
		auth := shopper
		if p == "/api/v1/admin/events" {
			auth = e2etest.AdminToken
		}
		resp := openStream(t, s, p, auth)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("GET %s: %d with Cache-Control %q, want 200 with no-store", p, resp.StatusCode, resp.Header.Get("Cache-Control"))
		}
		resp.Body.Close()
	}
	if r := s.Call(t, "GET", item, "", nil); r.Header.Get("Cache-Control") != "public, max-age=1" {
		t.Errorf("GET %s: Cache-Control %q, want the public sale to stay cacheable", item, r.Header.Get("Cache-Control"))
	}
}
