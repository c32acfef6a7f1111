package app_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/httpapi"
)

// TestPrivateAnswersAreNotStored walks every route whose answer carries a
// token or a shopper's data, as a shopper or the admin uses it: each answer,
// refusals included, says Cache-Control: no-store. The public sale answers
// stay cacheable.
func TestPrivateAnswersAreNotStored(t *testing.T) {
	t.Parallel()
	s := start(t, newClock(t0))
	id := s.sale(t, 10, 1, t0, t0.Add(time.Hour))
	roomID := roomSale(t, s, 10, 5, t0)
	item, room := "/api/v1/items/"+itoa(id), "/api/v1/items/"+itoa(roomID)+"/room"
	shopper, other := s.login(t, "ns-shopper"), s.login(t, "ns-other")
	first := s.call(t, "POST", item+"/purchase", shopper, nil, "Idempotency-Key", "ns-1")
	check(t, first, want{202, "", ""})
	second := s.call(t, "POST", item+"/purchase", other, nil)
	check(t, second, want{202, "", ""})
	s.settle(t, id)
	mine, theirs := "/api/v1/orders/"+first.str("order_id"), "/api/v1/orders/"+second.str("order_id")
	origin := []string{"Origin", "http://" + s.addr}
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
		{"POST", "/api/v1/admin/session", "", `{"token":"` + adminToken + `"}`, 200, origin},
		{"POST", "/api/v1/admin/session", "", `{"token":"wrong-admin-token-0123"}`, 401, origin},
		{"GET", "/api/v1/admin/session", adminToken, nil, 200, nil},
		{"DELETE", "/api/v1/admin/session", "", nil, 204, nil},
		{"GET", item + "/purchase-token", shopper, nil, 200, nil},
		{"POST", item + "/purchase", shopper, nil, 202, []string{"Idempotency-Key", "ns-1"}},
		{"POST", item + "/purchase", s.login(t, "ns-third"), nil, 202, nil},
		{"POST", "/api/v1/items/" + itoa(roomID) + "/challenge", shopper, nil, 200, nil},
		{"POST", room, shopper, nil, 403, nil}, // no proof of work
		{"POST", room, shopper, nil, 200, []string{httpapi.ProofOfWorkHeader, s.proof(t, roomID, shopper)}},
		{"GET", room, shopper, nil, 200, nil},
		{"GET", "/api/v1/orders", shopper, nil, 200, nil},
		{"GET", "/api/v1/orders", "", nil, 401, nil},
		{"GET", mine, shopper, nil, 200, nil},
		{"POST", mine + "/pay", shopper, nil, 200, nil},
		{"POST", theirs + "/cancel", other, nil, 200, nil},
		{"GET", "/api/v1/admin/items/" + itoa(id) + "/stats", adminToken, nil, 200, nil},
		{"GET", "/api/v1/admin/reconcile", adminToken, nil, 200, nil},
		{"POST", "/api/v1/admin/items/" + itoa(id) + "/warm", adminToken, nil, 200, nil},
		{"PATCH", "/api/v1/admin/items/" + itoa(id), adminToken, `{"name":"Renamed"}`, 200, nil},
		{"GET", "/api/v1/admin/items/" + itoa(id) + "/stats", "", nil, 401, nil},
	}
	for _, tc := range private {
		r := s.call(t, tc.method, tc.path, tc.auth, tc.body, tc.hdr...)
		if r.status != tc.status || r.header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s %s: %d with Cache-Control %q, want %d with no-store (%s)", tc.method, tc.path, r.status,
				r.header.Get("Cache-Control"), tc.status, r.raw)
		}
	}
	for _, p := range []string{"/api/v1/orders/" + first.str("order_id") + "/events", "/api/v1/admin/events"} {
		auth := shopper
		if p == "/api/v1/admin/events" {
			auth = adminToken
		}
		resp := openStream(t, s, p, auth)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("GET %s: %d with Cache-Control %q, want 200 with no-store", p, resp.StatusCode, resp.Header.Get("Cache-Control"))
		}
		resp.Body.Close()
	}
	if r := s.call(t, "GET", item, "", nil); r.header.Get("Cache-Control") != "public, max-age=1" {
		t.Errorf("GET %s: Cache-Control %q, want the public sale to stay cacheable", item, r.header.Get("Cache-Control"))
	}
}
