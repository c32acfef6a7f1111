package app_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/testenv"
)

// TestPauseStopsEveryServerWithinASecond: an operator who sees a price typo
// pauses the sale on one server, and within a second all three servers turn
// purchases and purchase tokens away with 423 sale_paused, even a token
// issued before the pause, while the order taken before stays the shopper's.
// Resume sells again; "end now" closes the sale on every server, and a
// second end does not move the end again.
func TestPauseStopsEveryServerWithinASecond(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	a := start(t, clk, func(c *config.Config) { c.PurchaseTokens = true })
	servers := []*server{a, a.twin(t, clk), a.twin(t, clk)}
	id := a.sale(t, 10, 1, t0, t0.Add(time.Hour))
	path := "/api/v1/items/" + itoa(id)
	alice, bob := mintToken(t, "alice"), mintToken(t, "bob")

	bought := a.buyWithToken(t, id, "alice")
	check(t, bought, want{202, "", ""})
	early := servers[1].call(t, "GET", path+"/purchase-token", bob, nil) // taken before the pause
	check(t, early, want{200, "", ""})

	pausedAt := time.Now()
	paused := a.call(t, "POST", "/api/v1/admin/items/"+itoa(id)+"/pause", adminToken, nil)
	if paused.status != 200 || paused.body["paused"] != true || paused.str("status") != "paused" {
		t.Fatalf("pause: %d %s", paused.status, paused.raw)
	}
	// Every server within one second of the pause, not each within its own.
	for i, s := range servers {
		testenv.WaitFor(t, max(time.Until(pausedAt.Add(time.Second)), time.Millisecond), func() bool {
			tok := s.call(t, "GET", path+"/purchase-token", mintToken(t, "carol"), nil)
			buy := s.call(t, "POST", path+"/purchase", bob, nil, "X-Purchase-Token", early.str("token"))
			page := s.call(t, "GET", path, "", nil)
			return tok.status == 423 && tok.errCode() == "sale_paused" &&
				buy.status == 423 && buy.errCode() == "sale_paused" && page.str("status") == "paused"
		}, "server %d still sells a paused sale", i)
	}
	order := a.call(t, "GET", "/api/v1/orders/"+bought.str("order_id"), alice, nil)
	if order.status != 200 || order.str("status") == "cancelled" {
		t.Fatalf("the order taken before the pause: %d %s", order.status, order.raw)
	}
	if st := a.stats(t, id); num(st.body, "sold") != 1 {
		t.Fatalf("a paused sale sold: %s", st.raw)
	}
	// A pause whose Redis write was lost (MySQL says paused, the scripts'
	// meta does not) is repaired by pausing again, not answered from MySQL.
	rdb, err := redisconn.Open(context.Background(), a.cfg.Redis, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	if err := rdb.HSet(context.Background(), keyspace.New(a.cfg.RedisPrefix).Item(id).Meta(), "paused", 0).Err(); err != nil {
		t.Fatal(err)
	}
	check(t, a.call(t, "POST", "/api/v1/admin/items/"+itoa(id)+"/pause", adminToken, nil), want{200, "", ""})
	check(t, servers[1].call(t, "POST", path+"/purchase", bob, nil, "X-Purchase-Token", early.str("token")),
		want{423, "sale_paused", ""})

	resumedAt := time.Now()
	check(t, servers[2].call(t, "POST", "/api/v1/admin/items/"+itoa(id)+"/resume", adminToken, nil), want{200, "", ""})
	// A server that just heard "paused" from Redis answers so itself for a
	// moment; the resume reaches its purchases within the second too.
	testenv.WaitFor(t, max(time.Until(resumedAt.Add(time.Second)), time.Millisecond), func() bool {
		return servers[1].call(t, "POST", path+"/purchase", bob, nil, "X-Purchase-Token", early.str("token")).status == 202
	}, "bob's purchase still refused a second after the resume")

	clk.Add(time.Minute)
	ended := a.call(t, "POST", "/api/v1/admin/items/"+itoa(id)+"/end", adminToken, nil)
	if ended.status != 200 || ended.str("status") != "ended" || ended.str("ends_at") != clk.Now().Format(time.RFC3339Nano) {
		t.Fatalf("end now at %s: %d %s", clk.Now(), ended.status, ended.raw)
	}
	for i, s := range servers {
		testenv.WaitFor(t, time.Second, func() bool {
			buy := s.buyAfterEnd(t, id, "dave")
			return buy.status == 403 && buy.errCode() == "ended" && s.call(t, "GET", path, "", nil).str("status") == "ended"
		}, "server %d still sells an ended sale", i)
	}
	clk.Add(time.Minute)
	again := a.call(t, "POST", "/api/v1/admin/items/"+itoa(id)+"/end", adminToken, nil)
	if again.status != 200 || again.str("ends_at") != ended.str("ends_at") {
		t.Fatalf("a second end moved the end: %s, first %s", again.raw, ended.str("ends_at"))
	}
	check(t, a.call(t, "POST", "/api/v1/admin/items/"+itoa(id)+"/pause", adminToken, nil), want{409, "sale_ended", ""})
	// The log names each control once, newest first; the second end changed
	// nothing, so it wrote nothing.
	var actions []string
	for _, e := range a.call(t, "GET", "/api/v1/admin/audit?item_id="+itoa(id), adminToken, nil).body["entries"].([]any) {
		actions = append(actions, e.(map[string]any)["action"].(string))
	}
	if got := strings.Join(actions, ","); got != "end,resume,pause,create" {
		t.Fatalf("audit log of the sale: %s", got)
	}
	check(t, a.call(t, "POST", "/api/v1/admin/items/999999/pause", adminToken, nil), want{404, "item_not_found", ""})
	check(t, a.call(t, "POST", "/api/v1/admin/items/"+itoa(id)+"/pause", "", nil), want{401, "unauthenticated", ""})
}

// buyAfterEnd asks for a token and, should one still be issued, buys with
// it: after the end both steps must refuse.
func (s *server) buyAfterEnd(tb testing.TB, itemID int64, shopper string) reply {
	tb.Helper()
	tok := mintToken(tb, shopper)
	pt := s.call(tb, "GET", "/api/v1/items/"+itoa(itemID)+"/purchase-token", tok, nil)
	if pt.status != 200 {
		return pt
	}
	return s.call(tb, "POST", "/api/v1/items/"+itoa(itemID)+"/purchase", tok, nil, "X-Purchase-Token", pt.str("token"))
}

// TestPausedRoomAdmitsNoOne: while a sale is paused its waiting room keeps
// every shopper's place and admits no one, on any server; an admission
// given before the pause cannot buy until the sale resumes; and the
// admissions the pause would have made are dropped, not let in at once on
// resume.
func TestPausedRoomAdmitsNoOne(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	a := start(t, clk)
	b := a.twin(t, clk)
	id := roomSale(t, a, 10, 1, t0)
	roomPath := "/api/v1/items/" + itoa(id) + "/room"
	alice, bob, carol := mintToken(t, "alice"), mintToken(t, "bob"), mintToken(t, "carol")

	admitted := a.join(t, id, alice)
	if admitted.str("state") != "admitted" {
		t.Fatalf("first in the room: %s", admitted.raw)
	}
	for _, tok := range []string{bob, carol} {
		if r := b.join(t, id, tok); r.str("state") != "waiting" {
			t.Fatalf("join: %s", r.raw)
		}
	}
	check(t, a.call(t, "POST", "/api/v1/admin/items/"+itoa(id)+"/pause", adminToken, nil), want{200, "", ""})
	clk.Add(5 * time.Second) // five admissions' worth of time
	for _, s := range []*server{a, b} {
		r := s.call(t, "GET", roomPath, bob, nil)
		if r.str("state") != "paused" || r.body["position"] != float64(2) || r.body["paused"] != true {
			t.Fatalf("bob in a paused room: %s", r.raw)
		}
	}
	check(t, a.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", alice, nil, "X-Purchase-Token", admitted.str("token")),
		want{423, "sale_paused", ""})

	check(t, b.call(t, "POST", "/api/v1/admin/items/"+itoa(id)+"/resume", adminToken, nil), want{200, "", ""})
	if r := a.call(t, "GET", roomPath, bob, nil); r.str("state") != "admitted" {
		t.Fatalf("bob after the resume: %s", r.raw)
	}
	if r := a.call(t, "GET", roomPath, carol, nil); r.str("state") != "waiting" {
		t.Fatalf("carol was let in by the pause's banked admissions: %s", r.raw)
	}
	check(t, a.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", alice, nil, "X-Purchase-Token", admitted.str("token")),
		want{202, "", ""})
}

// TestPausedStormIsToldPaused: shoppers who keep pressing Buy during a pause
// are told 423 sale_paused, not shed by the admission gate with a 503 "try
// again" as if it were a sell-out rush; a replay still gets its order; and
// the server takes purchases again within a second of the resume.
func TestPausedStormIsToldPaused(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	// A gate this tight sheds the third new shopper of a second while two
	// units are left.
	s := start(t, clk, func(c *config.Config) { c.AdmitMultiple, c.AdmitFloor = 1, 1 })
	id := s.sale(t, 3, 1, t0, t0.Add(time.Hour))
	path := "/api/v1/items/" + itoa(id) + "/purchase"
	alice := mintToken(t, "alice")
	bought := s.call(t, "POST", path, alice, nil, "Idempotency-Key", "alice-1")
	check(t, bought, want{202, "", ""})

	check(t, s.call(t, "POST", "/api/v1/admin/items/"+itoa(id)+"/pause", adminToken, nil), want{200, "", ""})
	for i := range 10 {
		check(t, s.call(t, "POST", path, mintToken(t, "storm"+itoa(int64(i))), nil), want{423, "sale_paused", ""})
	}
	replay := s.call(t, "POST", path, alice, nil, "Idempotency-Key", "alice-1")
	if replay.status != 202 || replay.str("order_id") != bought.str("order_id") || replay.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("a replay during the pause: %d %s", replay.status, replay.raw)
	}

	resumed := time.Now()
	check(t, s.call(t, "POST", "/api/v1/admin/items/"+itoa(id)+"/resume", adminToken, nil), want{200, "", ""})
	bob := mintToken(t, "bob")
	testenv.WaitFor(t, max(time.Until(resumed.Add(time.Second)), time.Millisecond), func() bool {
		return s.call(t, "POST", path, bob, nil, "Idempotency-Key", "bob-1").status == 202
	}, "purchases still refused a second after the resume")
}
