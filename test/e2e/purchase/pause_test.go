package purchase

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestPauseStopsEveryServerWithinASecond: an operator who sees a price typo
// pauses the sale on one server, and within a second all three servers turn
// purchases and purchase tokens away with 423 sale_paused, even a token
// issued before the pause, while the order taken before stays the shopper's.
// Resume sells again; "end now" closes the sale on every server, and a
// second end does not move the end again.
func TestPauseStopsEveryServerWithinASecond(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	a := e2etest.Start(t, clk, func(c *config.Config) { c.PurchaseTokens = true })
	servers := []*e2etest.Server{a, a.Twin(t, clk), a.Twin(t, clk)}
	id := a.Sale(t, 10, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	path := "/api/v1/items/" + e2etest.Itoa(id)
	alice, bob := e2etest.MintToken(t, "alice"), e2etest.MintToken(t, "bob")

	bought := a.BuyWithToken(t, id, "alice")
	e2etest.Check(t, bought, e2etest.Want{Status: 202})
	early := servers[1].Call(t, "GET", path+"/purchase-token", bob, nil) // taken before the pause
	e2etest.Check(t, early, e2etest.Want{Status: 200})

	pausedAt := time.Now()
	paused := a.Call(t, "POST", "/api/v1/admin/items/"+e2etest.Itoa(id)+"/pause", e2etest.AdminToken, nil)
	if paused.Status != 200 || paused.Body["paused"] != true || paused.Str("status") != "paused" {
		t.Fatalf("pause: %d %s", paused.Status, paused.Raw)
	}
	// Every server within one second of the pause, not each within its own.
	for i, s := range servers {
		testenv.WaitFor(t, max(time.Until(pausedAt.Add(time.Second)), time.Millisecond), func() bool {
			tok := s.Call(t, "GET", path+"/purchase-token", e2etest.MintToken(t, "carol"), nil)
			buy := s.Call(t, "POST", path+"/purchase", bob, nil, "X-Purchase-Token", early.Str("token"))
			page := s.Call(t, "GET", path, "", nil)
			return tok.Status == 423 && tok.ErrCode() == "sale_paused" &&
				buy.Status == 423 && buy.ErrCode() == "sale_paused" && page.Str("status") == "paused"
		}, "server %d still sells a paused sale", i)
	}
	order := a.Call(t, "GET", "/api/v1/orders/"+bought.Str("order_id"), alice, nil)
	if order.Status != 200 || order.Str("status") == "cancelled" {
		t.Fatalf("the order taken before the pause: %d %s", order.Status, order.Raw)
	}
	if st := a.Stats(t, id); e2etest.Num(st.Body, "sold") != 1 {
		t.Fatalf("a paused sale sold: %s", st.Raw)
	}
	// A pause whose Redis write was lost (MySQL says paused, the scripts'
	// meta does not) is repaired by pausing again, not answered from MySQL.
	rdb, err := redisconn.Open(context.Background(), a.Cfg.Redis, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	if err := rdb.HSet(context.Background(), keyspace.New(a.Cfg.RedisPrefix).Item(id).Meta(), "paused", 0).Err(); err != nil {
		t.Fatal(err)
	}
	e2etest.Check(t, a.Call(t, "POST", "/api/v1/admin/items/"+e2etest.Itoa(id)+"/pause", e2etest.AdminToken, nil), e2etest.Want{Status: 200})
	e2etest.Check(t, servers[1].Call(t, "POST", path+"/purchase", bob, nil, "X-Purchase-Token", early.Str("token")),
		e2etest.Want{Status: 423, Code: "sale_paused"})

	resumedAt := time.Now()
	e2etest.Check(t, servers[2].Call(t, "POST", "/api/v1/admin/items/"+e2etest.Itoa(id)+"/resume", e2etest.AdminToken, nil), e2etest.Want{Status: 200})
	// A server that just heard "paused" from Redis answers so itself for a
	// moment; the resume reaches its purchases within the second too.
	testenv.WaitFor(t, max(time.Until(resumedAt.Add(time.Second)), time.Millisecond), func() bool {
		return servers[1].Call(t, "POST", path+"/purchase", bob, nil, "X-Purchase-Token", early.Str("token")).Status == 202
	}, "bob's purchase still refused a second after the resume")

	clk.Add(time.Minute)
	ended := a.Call(t, "POST", "/api/v1/admin/items/"+e2etest.Itoa(id)+"/end", e2etest.AdminToken, nil)
	if ended.Status != 200 || ended.Str("status") != "ended" || ended.Str("ends_at") != clk.Now().Format(time.RFC3339Nano) {
		t.Fatalf("end now at %s: %d %s", clk.Now(), ended.Status, ended.Raw)
	}
	for i, s := range servers {
		testenv.WaitFor(t, time.Second, func() bool {
			buy := s.BuyAfterEnd(t, id, "dave")
			return buy.Status == 403 && buy.ErrCode() == "ended" && s.Call(t, "GET", path, "", nil).Str("status") == "ended"
		}, "server %d still sells an ended sale", i)
	}
	clk.Add(time.Minute)
	again := a.Call(t, "POST", "/api/v1/admin/items/"+e2etest.Itoa(id)+"/end", e2etest.AdminToken, nil)
	if again.Status != 200 || again.Str("ends_at") != ended.Str("ends_at") {
		t.Fatalf("a second end moved the end: %s, first %s", again.Raw, ended.Str("ends_at"))
	}
	e2etest.Check(t, a.Call(t, "POST", "/api/v1/admin/items/"+e2etest.Itoa(id)+"/pause", e2etest.AdminToken, nil), e2etest.Want{Status: 409, Code: "sale_ended"})
	// The log names each control once, newest first; the second end changed
	// nothing, so it wrote nothing.
	var actions []string
	for _, e := range a.Call(t, "GET", "/api/v1/admin/audit?item_id="+e2etest.Itoa(id), e2etest.AdminToken, nil).Body["entries"].([]any) {
		actions = append(actions, e.(map[string]any)["action"].(string))
	}
	if got := strings.Join(actions, ","); got != "end,resume,pause,create" {
		t.Fatalf("audit log of the sale: %s", got)
	}
	e2etest.Check(t, a.Call(t, "POST", "/api/v1/admin/items/999999/pause", e2etest.AdminToken, nil), e2etest.Want{Status: 404, Code: "item_not_found"})
	e2etest.Check(t, a.Call(t, "POST", "/api/v1/admin/items/"+e2etest.Itoa(id)+"/pause", "", nil), e2etest.Want{Status: 401, Code: "unauthenticated"})
}

// TestPausedRoomAdmitsNoOne: while a sale is paused its waiting room keeps
// every shopper's place and admits no one, on any server; an admission
// given before the pause cannot buy until the sale resumes; and the
// admissions the pause would have made are dropped, not let in at once on
// resume.
func TestPausedRoomAdmitsNoOne(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	a := e2etest.Start(t, clk)
	b := a.Twin(t, clk)
	id := e2etest.RoomSale(t, a, 10, 1, e2etest.T0)
	roomPath := "/api/v1/items/" + e2etest.Itoa(id) + "/room"
	alice, bob, carol := e2etest.MintToken(t, "alice"), e2etest.MintToken(t, "bob"), e2etest.MintToken(t, "carol")

	admitted := a.Join(t, id, alice)
	if admitted.Str("state") != "admitted" {
		t.Fatalf("first in the room: %s", admitted.Raw)
	}
	for _, tok := range []string{bob, carol} {
		if r := b.Join(t, id, tok); r.Str("state") != "waiting" {
			t.Fatalf("join: %s", r.Raw)
		}
	}
	e2etest.Check(t, a.Call(t, "POST", "/api/v1/admin/items/"+e2etest.Itoa(id)+"/pause", e2etest.AdminToken, nil), e2etest.Want{Status: 200})
	clk.Add(5 * time.Second) // five admissions' worth of time
	for _, s := range []*e2etest.Server{a, b} {
		r := s.Call(t, "GET", roomPath, bob, nil)
		if r.Str("state") != "paused" || r.Body["position"] != float64(2) || r.Body["paused"] != true {
			t.Fatalf("bob in a paused room: %s", r.Raw)
		}
	}
	e2etest.Check(t, a.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", alice, nil, "X-Purchase-Token", admitted.Str("token")),
		e2etest.Want{Status: 423, Code: "sale_paused"})

	e2etest.Check(t, b.Call(t, "POST", "/api/v1/admin/items/"+e2etest.Itoa(id)+"/resume", e2etest.AdminToken, nil), e2etest.Want{Status: 200})
	if r := a.Call(t, "GET", roomPath, bob, nil); r.Str("state") != "admitted" {
		t.Fatalf("bob after the resume: %s", r.Raw)
	}
	if r := a.Call(t, "GET", roomPath, carol, nil); r.Str("state") != "waiting" {
		t.Fatalf("carol was let in by the pause's banked admissions: %s", r.Raw)
	}
	e2etest.Check(t, a.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", alice, nil, "X-Purchase-Token", admitted.Str("token")),
		e2etest.Want{Status: 202})
}

// TestPausedStormIsToldPaused: shoppers who keep pressing Buy during a pause
// are told 423 sale_paused, not shed by the admission gate with a 503 "try
// again" as if it were a sell-out rush; a replay still gets its order; and
// the server takes purchases again within a second of the resume.
func TestPausedStormIsToldPaused(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	// A gate this tight sheds the third new shopper of a second while two
	// units are left.
	s := e2etest.Start(t, clk, func(c *config.Config) { c.AdmitMultiple, c.AdmitFloor = 1, 1 })
	id := s.Sale(t, 3, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	path := "/api/v1/items/" + e2etest.Itoa(id) + "/purchase"
	alice := e2etest.MintToken(t, "alice")
	bought := s.Call(t, "POST", path, alice, nil, "Idempotency-Key", "alice-1")
	e2etest.Check(t, bought, e2etest.Want{Status: 202})

	e2etest.Check(t, s.Call(t, "POST", "/api/v1/admin/items/"+e2etest.Itoa(id)+"/pause", e2etest.AdminToken, nil), e2etest.Want{Status: 200})
	for i := range 10 {
		e2etest.Check(t, s.Call(t, "POST", path, e2etest.MintToken(t, "storm"+e2etest.Itoa(int64(i))), nil), e2etest.Want{Status: 423, Code: "sale_paused"})
	}
	replay := s.Call(t, "POST", path, alice, nil, "Idempotency-Key", "alice-1")
	if replay.Status != 202 || replay.Str("order_id") != bought.Str("order_id") || replay.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("a replay during the pause: %d %s", replay.Status, replay.Raw)
	}

	resumed := time.Now()
	e2etest.Check(t, s.Call(t, "POST", "/api/v1/admin/items/"+e2etest.Itoa(id)+"/resume", e2etest.AdminToken, nil), e2etest.Want{Status: 200})
	bob := e2etest.MintToken(t, "bob")
	testenv.WaitFor(t, max(time.Until(resumed.Add(time.Second)), time.Millisecond), func() bool {
		return s.Call(t, "POST", path, bob, nil, "Idempotency-Key", "bob-1").Status == 202
	}, "purchases still refused a second after the resume")
}
