package room

import (
	"math"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestWaitingRoomStorm sends 5,000 shoppers through a sale's waiting room,
// spread over two servers that share MySQL and Redis: 3,000 join before the
// opening, 2,000 after it in four waves. The servers' clock is the test's,
// so the admission rate is checked exactly. The room must admit at its rate,
// in an order that owes nothing to arrival before the opening and is first
// come, first served after it; admit nobody twice; admit nobody once the
// sale is sold out; and admit again when a cancel brings a unit back.
func TestWaitingRoomStorm(t *testing.T) {
	t.Parallel()
	const early, late, stock, rate = 3000, 2000, 300, 100
	clk := e2etest.NewClock(e2etest.T0)
	opens := e2etest.T0.Add(10 * time.Second)
	// 5,000 joins a minute from one address are the bot farm the proof of
	// work prices (12 bits a join here, 20 million hashes in all); this
	// test is about the room, and pow_test.go about the proof.
	a := e2etest.Start(t, clk, func(c *config.Config) { c.PoW = false })
	servers := []*e2etest.Server{a, a.Twin(t, clk)}
	id := e2etest.RoomSale(t, a, stock, rate, opens)
	shoppers := make([]string, early+late)
	tokens := make([]string, len(shoppers))
	for i := range shoppers {
		shoppers[i] = "shopper" + strconv.Itoa(i)
		tokens[i] = e2etest.MintToken(t, shoppers[i])
	}
	srv := func(i int) *e2etest.Server { return servers[i%2] }
	roomPath := "/api/v1/items/" + e2etest.Itoa(id) + "/room"

	// Before the opening: everyone is in, nobody has a place yet.
	parallel(early, func(i int) {
		r := srv(i).Call(t, "POST", roomPath, tokens[i], nil)
		if r.Status != 200 || r.Str("state") != "waiting" || r.Body["position"] != nil {
			t.Errorf("early join of %s: %d %s", shoppers[i], r.Status, r.Raw)
		}
	})
	clk.Set(opens)
	for w := range 4 { // after it: four waves, each after the one before
		parallel(late/4, func(j int) {
			i := early + w*late/4 + j
			if r := srv(i).Call(t, "POST", roomPath, tokens[i], nil); r.Status != 200 || r.Body["position"] == nil {
				t.Errorf("late join of %s: %d %s", shoppers[i], r.Status, r.Raw)
			}
		})
	}
	pos := positions(t, servers, roomPath, tokens)
	checkQueueOrder(t, pos, early, late)

	// Admission at the rate: one at the opening, then one per 10 ms. The
	// admitted buy at once, so the stock never holds the room back until
	// the last units.
	byPos := make([]int, len(pos)) // place (0-based) -> shopper
	for i, p := range pos {
		byPos[p-1] = i
	}
	bought := 0
	for _, step := range []struct {
		after time.Duration
		want  int64
	}{{0, 1}, {time.Second, 101}, {1500 * time.Millisecond, 151}, {2 * time.Second, 201}, {3 * time.Second, stock}} {
		clk.Set(opens.Add(step.after))
		st := a.Call(t, "GET", roomPath, tokens[0], nil)
		if got := int64(st.Body["admitted"].(float64)); got != step.want {
			t.Fatalf("%v after the opening: %d admitted, want %d (%s)", step.after, got, step.want, st.Raw)
		}
		for ; bought < int(step.want); bought++ {
			e2etest.BuyAdmitted(t, srv(bought), id, roomPath, tokens[byPos[bought]])
		}
	}

	// Sold out: nobody else is admitted, however long the clock runs, and
	// everyone still waiting is told; a purchase without admission is refused.
	clk.Set(opens.Add(time.Minute))
	final := looks(t, servers, roomPath, tokens)
	admitted := 0
	for i, r := range final {
		switch {
		case r.Str("admitted_at") != "":
			admitted++
			if pos[i] > stock {
				t.Errorf("%s admitted from place %d, behind the first %d", shoppers[i], pos[i], stock)
			}
		case r.Str("state") != "sold_out":
			t.Errorf("%s after the sell-out: %s", shoppers[i], r.Raw)
		}
	}
	if admitted != stock || final[0].Body["admitted"].(float64) != stock {
		t.Fatalf("%d shoppers admitted (room says %v), want exactly %d", admitted, final[0].Body["admitted"], stock)
	}
	e2etest.Check(t, a.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", tokens[byPos[stock]], nil), e2etest.Want{Status: 403, Code: "not_admitted"})
	st := a.Settle(t, id)
	if st.Body["sold"].(float64) != stock || st.Body["consistent"] != true || len(a.OrderIDs(t, id)) != stock {
		t.Fatalf("after the room sold out: %s", st.Raw)
	}

	// A cancel brings a unit back: the next in line is admitted, only one.
	cancelFirstOrder(t, a, tokens[byPos[0]])
	next := a.Call(t, "GET", roomPath, tokens[byPos[stock]], nil)
	after := a.Call(t, "GET", roomPath, tokens[byPos[stock+1]], nil)
	if next.Str("state") != "admitted" || next.Str("token") == "" || after.Str("state") != "waiting" {
		t.Fatalf("after a cancel: next in line %s; the one after %s", next.Raw, after.Raw)
	}
	// The canceller's turn was used: their admission, still in its window,
	// cannot buy back the unit the room has given the next in line.
	again := a.Call(t, "GET", roomPath, tokens[byPos[0]], nil)
	e2etest.Check(t, a.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", tokens[byPos[0]], nil, "X-Purchase-Token", again.Str("token")),
		e2etest.Want{Status: 403, Code: "not_admitted"})
	e2etest.BuyAdmitted(t, servers[1], id, roomPath, tokens[byPos[stock]])
	t.Logf("%d shoppers through the room on two servers: %d admitted at %d/s, %d told sold out; room %s",
		len(shoppers), admitted, rate, len(shoppers)-admitted, final[0].Raw)
}

// parallel runs fn(0..n-1) on 32 goroutines, in index order of start.
func parallel(n int, fn func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// looks asks every shopper's standing, half on each server.
func looks(t *testing.T, servers []*e2etest.Server, path string, tokens []string) []e2etest.Reply {
	out := make([]e2etest.Reply, len(tokens))
	parallel(len(tokens), func(i int) { out[i] = servers[i%2].Call(t, "GET", path, tokens[i], nil) })
	return out
}

// positions returns every shopper's 1-based place, failing on any without.
func positions(t *testing.T, servers []*e2etest.Server, path string, tokens []string) []int {
	t.Helper()
	out := make([]int, len(tokens))
	for i, r := range looks(t, servers, path, tokens) {
		p, ok := r.Body["position"].(float64)
		if !ok {
			t.Fatalf("shopper %d has no place after the opening: %s", i, r.Raw)
		}
		out[i] = int(p)
	}
	return out
}

// checkQueueOrder: the early joiners hold places 1..early in an order
// unrelated to when they joined; the late ones follow, wave after wave.
func checkQueueOrder(t *testing.T, pos []int, early, late int) {
	t.Helper()
	seen := make([]bool, len(pos)+1)
	for i, p := range pos {
		if p < 1 || p > len(pos) || seen[p] {
			t.Fatalf("shopper %d has place %d: places must be 1..%d, once each", i, p, len(pos))
		}
		seen[p] = true
		if (i < early) != (p <= early) {
			t.Fatalf("shopper %d (joined %s the opening) has place %d", i, map[bool]string{true: "before", false: "after"}[i < early], p)
		}
	}
	arrival, place := make([]float64, early), make([]float64, early)
	for i := range early {
		arrival[i], place[i] = float64(i), float64(pos[i])
	}
	// Ranks are the values themselves: both are permutations of 0..n-1 and
	// 1..n. Under no relation ρ has a standard deviation of 1/√(n−1) ≈ 0.018.
	if rho := pearson(arrival, place); math.Abs(rho) > 0.1 {
		t.Errorf("early places follow arrival: Spearman ρ = %.3f", rho)
	} else {
		t.Logf("early joiners: Spearman ρ between arrival and place = %.3f", rho)
	}
	wave := late / 4
	for w := 1; w < 4; w++ {
		lo, hi := early+w*wave, early+(w+1)*wave
		prevMax := slices(pos[early+(w-1)*wave : lo])
		if minOf := slices(pos[lo:hi]); minOf.min <= prevMax.max {
			t.Errorf("wave %d starts at place %d, before wave %d ends (%d): not first come, first served", w, minOf.min, w-1, prevMax.max)
		}
	}
}

type span struct{ min, max int }

func slices(ps []int) span {
	s := append([]int(nil), ps...)
	sort.Ints(s)
	return span{s[0], s[len(s)-1]}
}

func pearson(x, y []float64) float64 {
	var mx, my float64
	for i := range x {
		mx, my = mx+x[i], my+y[i]
	}
	mx, my = mx/float64(len(x)), my/float64(len(y))
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy, sxx, syy = sxy+dx*dy, sxx+dx*dx, syy+dy*dy
	}
	return sxy / math.Sqrt(sxx*syy)
}

// cancelFirstOrder cancels the shopper's one order once it is confirmed.
func cancelFirstOrder(t *testing.T, s *e2etest.Server, tok string) {
	t.Helper()
	orders := s.Call(t, "GET", "/api/v1/orders", tok, nil)
	list, _ := orders.Body["orders"].([]any)
	if len(list) != 1 {
		t.Fatalf("orders: %s", orders.Raw)
	}
	oid := list[0].(map[string]any)["order_id"].(string)
	e2etest.Check(t, s.Call(t, "POST", "/api/v1/orders/"+oid+"/cancel", tok, nil), e2etest.Want{Status: 200})
}

// TestWaitingRoomAnswers: every way to misuse a room gets a clear error and
// changes nothing; an admission is bound to its shopper and sale.
func TestWaitingRoomAnswers(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk, func(c *config.Config) { c.PurchaseTokens = true })
	roomID := e2etest.RoomSale(t, s, 5, 1, e2etest.T0)
	plainID := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	alice, bob := e2etest.MintToken(t, "alice"), e2etest.MintToken(t, "bob")
	path := func(id int64, rest string) string { return "/api/v1/items/" + e2etest.Itoa(id) + rest }

	e2etest.Check(t, s.Call(t, "POST", path(roomID, "/room"), "", nil), e2etest.Want{Status: 401, Code: "unauthenticated"})
	// The proof of work comes first: the guard knows sales, not rooms.
	e2etest.Check(t, s.Call(t, "POST", path(plainID, "/room"), alice, nil), e2etest.Want{Status: 403, Code: "proof_of_work_required"})
	e2etest.Check(t, s.Join(t, plainID, alice), e2etest.Want{Status: 409, Code: "no_waiting_room"})
	e2etest.Check(t, s.Call(t, "GET", path(999, "/room"), alice, nil), e2etest.Want{Status: 404, Code: "item_not_found"})
	e2etest.Check(t, s.Call(t, "GET", path(plainID, "/room/events"), "", nil), e2etest.Want{Status: 409, Code: "no_waiting_room"})
	e2etest.Check(t, s.Call(t, "GET", path(roomID, "/purchase-token"), alice, nil), e2etest.Want{Status: 403, Code: "waiting_room"})
	bad := s.Call(t, "POST", "/api/v1/admin/items", e2etest.AdminToken, map[string]any{"name": "x", "price_cents": 1,
		"stock_total": 1, "room_rate": -1, "starts_at": e2etest.T0.Format(time.RFC3339), "ends_at": e2etest.T0.Add(time.Hour).Format(time.RFC3339)})
	e2etest.Check(t, bad, e2etest.Want{Status: 400, Code: "invalid_request", Field: "room_rate"})
	if r := s.Call(t, "GET", path(roomID, "/room"), alice, nil); r.Str("state") != "not_joined" || r.Body["joined"] != false {
		t.Fatalf("look before joining: %s", r.Raw)
	}

	joined := s.Join(t, roomID, alice)
	if joined.Str("state") != "admitted" || joined.Body["position"] != float64(1) || joined.Str("token") == "" {
		t.Fatalf("first in an open room: %s", joined.Raw)
	}
	tok := joined.Str("token")
	buy := func(id int64, auth, tok string) e2etest.Reply {
		return s.Call(t, "POST", path(id, "/purchase"), auth, nil, "X-Purchase-Token", tok)
	}
	e2etest.Check(t, buy(roomID, bob, tok), e2etest.Want{Status: 403, Code: "invalid_purchase_token"})    // alice's admission, bob's request
	e2etest.Check(t, buy(plainID, alice, tok), e2etest.Want{Status: 403, Code: "invalid_purchase_token"}) // another sale's
	clk.Add(3 * time.Minute)                                                                              // past the window to buy
	e2etest.Check(t, buy(roomID, alice, tok), e2etest.Want{Status: 403, Code: "invalid_purchase_token"})
	if r := s.Call(t, "GET", path(roomID, "/room"), alice, nil); r.Str("state") != "expired" || r.Str("token") != "" {
		t.Fatalf("after the window: %s", r.Raw)
	}
	if st := s.Stats(t, roomID); st.Body["sold"].(float64) != 0 {
		t.Fatalf("refused purchases sold something: %s", st.Raw)
	}
}

// TestAdmittedPurchasePassesTheGate: the admission gate, which sheds a
// stampede on a sale's last units, does not turn away a shopper the waiting
// room admitted: the room already meters them against the stock left, and a
// refusal would hold their unit until their window passed. Non-admitted
// requests use up the gate's budget first (multiple 1, one unit left).
func TestAdmittedPurchasePassesTheGate(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk, func(c *config.Config) { c.PurchaseTokens = false; c.AdmitMultiple = 1 })
	id := e2etest.RoomSale(t, s, 2, 100, e2etest.T0.Add(-time.Second))
	roomPath, buyPath := "/api/v1/items/"+e2etest.Itoa(id)+"/room", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase"
	ann, bob := e2etest.MintToken(t, "ann"), e2etest.MintToken(t, "bob")
	for _, tok := range []string{ann, bob} {
		e2etest.Check(t, s.Join(t, id, tok), e2etest.Want{Status: 200})
	}
	clk.Add(time.Second)                         // both admitted; the clock stays here, so the gate's window never rolls over
	e2etest.BuyAdmitted(t, s, id, roomPath, ann) // the gate now knows 1 unit is left
	e2etest.Check(t, s.Call(t, "POST", buyPath, e2etest.MintToken(t, "xan"), nil), e2etest.Want{Status: 403, Code: "not_admitted"})
	e2etest.Check(t, s.Call(t, "POST", buyPath, e2etest.MintToken(t, "yul"), nil), e2etest.Want{Status: 503, Code: "unavailable"}) // the gate's budget is spent
	e2etest.BuyAdmitted(t, s, id, roomPath, bob)
	if st := s.Settle(t, id); st.Body["sold"].(float64) != 2 || st.Body["consistent"] != true {
		t.Fatalf("stats: %s", st.Raw)
	}
}
