package app_test

import (
	"math"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
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
	clk := newClock(t0)
	opens := t0.Add(10 * time.Second)
	// 5,000 joins a minute from one address are the bot farm the proof of
	// work prices (12 bits a join here, 20 million hashes in all); this
	// test is about the room, and pow_test.go about the proof.
	a := start(t, clk, func(c *config.Config) { c.PoW = false })
	servers := []*server{a, a.twin(t, clk)}
	id := roomSale(t, a, stock, rate, opens)
	shoppers := make([]string, early+late)
	tokens := make([]string, len(shoppers))
	for i := range shoppers {
		shoppers[i] = "shopper" + strconv.Itoa(i)
		tokens[i] = mintToken(t, shoppers[i])
	}
	srv := func(i int) *server { return servers[i%2] }
	roomPath := "/api/v1/items/" + itoa(id) + "/room"

	// Before the opening: everyone is in, nobody has a place yet.
	parallel(early, func(i int) {
		r := srv(i).call(t, "POST", roomPath, tokens[i], nil)
		if r.status != 200 || r.str("state") != "waiting" || r.body["position"] != nil {
			t.Errorf("early join of %s: %d %s", shoppers[i], r.status, r.raw)
		}
	})
	clk.Set(opens)
	for w := range 4 { // after it: four waves, each after the one before
		parallel(late/4, func(j int) {
			i := early + w*late/4 + j
			if r := srv(i).call(t, "POST", roomPath, tokens[i], nil); r.status != 200 || r.body["position"] == nil {
				t.Errorf("late join of %s: %d %s", shoppers[i], r.status, r.raw)
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
		st := a.call(t, "GET", roomPath, tokens[0], nil)
		if got := int64(st.body["admitted"].(float64)); got != step.want {
			t.Fatalf("%v after the opening: %d admitted, want %d (%s)", step.after, got, step.want, st.raw)
		}
		for ; bought < int(step.want); bought++ {
			buyAdmitted(t, srv(bought), id, roomPath, tokens[byPos[bought]])
		}
	}

	// Sold out: nobody else is admitted, however long the clock runs, and
	// everyone still waiting is told; a purchase without admission is refused.
	clk.Set(opens.Add(time.Minute))
	final := looks(t, servers, roomPath, tokens)
	admitted := 0
	for i, r := range final {
		switch {
		case r.str("admitted_at") != "":
			admitted++
			if pos[i] > stock {
				t.Errorf("%s admitted from place %d, behind the first %d", shoppers[i], pos[i], stock)
			}
		case r.str("state") != "sold_out":
			t.Errorf("%s after the sell-out: %s", shoppers[i], r.raw)
		}
	}
	if admitted != stock || final[0].body["admitted"].(float64) != stock {
		t.Fatalf("%d shoppers admitted (room says %v), want exactly %d", admitted, final[0].body["admitted"], stock)
	}
	check(t, a.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", tokens[byPos[stock]], nil), want{403, "not_admitted", ""})
	st := a.settle(t, id)
	if st.body["sold"].(float64) != stock || st.body["consistent"] != true || len(a.orderIDs(t, id)) != stock {
		t.Fatalf("after the room sold out: %s", st.raw)
	}

	// A cancel brings a unit back: the next in line is admitted, only one.
	cancelFirstOrder(t, a, tokens[byPos[0]])
	next := a.call(t, "GET", roomPath, tokens[byPos[stock]], nil)
	after := a.call(t, "GET", roomPath, tokens[byPos[stock+1]], nil)
	if next.str("state") != "admitted" || next.str("token") == "" || after.str("state") != "waiting" {
		t.Fatalf("after a cancel: next in line %s; the one after %s", next.raw, after.raw)
	}
	// The canceller's turn was used: their admission, still in its window,
	// cannot buy back the unit the room has given the next in line.
	again := a.call(t, "GET", roomPath, tokens[byPos[0]], nil)
	check(t, a.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", tokens[byPos[0]], nil, "X-Purchase-Token", again.str("token")),
		want{403, "not_admitted", ""})
	buyAdmitted(t, servers[1], id, roomPath, tokens[byPos[stock]])
	t.Logf("%d shoppers through the room on two servers: %d admitted at %d/s, %d told sold out; room %s",
		len(shoppers), admitted, rate, len(shoppers)-admitted, final[0].raw)
}

// roomSale creates a sale of stock units (one per shopper) with a waiting
// room admitting rate shoppers a second, opening at opens.
func roomSale(tb testing.TB, s *server, stock, rate int, opens time.Time) int64 {
	tb.Helper()
	r := s.call(tb, "POST", "/api/v1/admin/items", adminToken, map[string]any{
		"name": "Storm jacket, waiting room", "price_cents": 9900, "stock_total": stock, "per_user_limit": 1,
		"room_rate": rate, "starts_at": opens.Format(time.RFC3339Nano), "ends_at": opens.Add(time.Hour).Format(time.RFC3339Nano),
	})
	if r.status != 201 || r.body["room_rate"] != float64(rate) {
		tb.Fatalf("create room sale: %d %s", r.status, r.raw)
	}
	return int64(r.body["id"].(float64))
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
func looks(t *testing.T, servers []*server, path string, tokens []string) []reply {
	out := make([]reply, len(tokens))
	parallel(len(tokens), func(i int) { out[i] = servers[i%2].call(t, "GET", path, tokens[i], nil) })
	return out
}

// positions returns every shopper's 1-based place, failing on any without.
func positions(t *testing.T, servers []*server, path string, tokens []string) []int {
	t.Helper()
	out := make([]int, len(tokens))
	for i, r := range looks(t, servers, path, tokens) {
		p, ok := r.body["position"].(float64)
		if !ok {
			t.Fatalf("shopper %d has no place after the opening: %s", i, r.raw)
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

// buyAdmitted fetches the shopper's admission token and buys with it.
func buyAdmitted(t *testing.T, s *server, id int64, roomPath, tok string) {
	t.Helper()
	r := s.call(t, "GET", roomPath, tok, nil)
	if r.str("state") != "admitted" || r.str("token") == "" {
		t.Fatalf("expected admitted: %s", r.raw)
	}
	check(t, s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/purchase", tok, nil, "X-Purchase-Token", r.str("token")),
		want{202, "", ""})
}

// cancelFirstOrder cancels the shopper's one order once it is confirmed.
func cancelFirstOrder(t *testing.T, s *server, tok string) {
	t.Helper()
	orders := s.call(t, "GET", "/api/v1/orders", tok, nil)
	list, _ := orders.body["orders"].([]any)
	if len(list) != 1 {
		t.Fatalf("orders: %s", orders.raw)
	}
	oid := list[0].(map[string]any)["order_id"].(string)
	check(t, s.call(t, "POST", "/api/v1/orders/"+oid+"/cancel", tok, nil), want{200, "", ""})
}

// TestWaitingRoomAnswers: every way to misuse a room gets a clear error and
// changes nothing; an admission is bound to its shopper and sale.
func TestWaitingRoomAnswers(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk, func(c *config.Config) { c.PurchaseTokens = true })
	roomID := roomSale(t, s, 5, 1, t0)
	plainID := s.sale(t, 5, 1, t0, t0.Add(time.Hour))
	alice, bob := mintToken(t, "alice"), mintToken(t, "bob")
	path := func(id int64, rest string) string { return "/api/v1/items/" + itoa(id) + rest }

	check(t, s.call(t, "POST", path(roomID, "/room"), "", nil), want{401, "unauthenticated", ""})
	// The proof of work comes first: the guard knows sales, not rooms.
	check(t, s.call(t, "POST", path(plainID, "/room"), alice, nil), want{403, "proof_of_work_required", ""})
	check(t, s.join(t, plainID, alice), want{409, "no_waiting_room", ""})
	check(t, s.call(t, "GET", path(999, "/room"), alice, nil), want{404, "item_not_found", ""})
	check(t, s.call(t, "GET", path(plainID, "/room/events"), "", nil), want{409, "no_waiting_room", ""})
	check(t, s.call(t, "GET", path(roomID, "/purchase-token"), alice, nil), want{403, "waiting_room", ""})
	bad := s.call(t, "POST", "/api/v1/admin/items", adminToken, map[string]any{"name": "x", "price_cents": 1,
		"stock_total": 1, "room_rate": -1, "starts_at": t0.Format(time.RFC3339), "ends_at": t0.Add(time.Hour).Format(time.RFC3339)})
	check(t, bad, want{400, "invalid_request", "room_rate"})
	if r := s.call(t, "GET", path(roomID, "/room"), alice, nil); r.str("state") != "not_joined" || r.body["joined"] != false {
		t.Fatalf("look before joining: %s", r.raw)
	}

	joined := s.join(t, roomID, alice)
	if joined.str("state") != "admitted" || joined.body["position"] != float64(1) || joined.str("token") == "" {
		t.Fatalf("first in an open room: %s", joined.raw)
	}
	tok := joined.str("token")
	buy := func(id int64, auth, tok string) reply {
		return s.call(t, "POST", path(id, "/purchase"), auth, nil, "X-Purchase-Token", tok)
	}
	check(t, buy(roomID, bob, tok), want{403, "invalid_purchase_token", ""})    // alice's admission, bob's request
	check(t, buy(plainID, alice, tok), want{403, "invalid_purchase_token", ""}) // another sale's
	clk.Add(3 * time.Minute)                                                    // past the window to buy
	check(t, buy(roomID, alice, tok), want{403, "invalid_purchase_token", ""})
	if r := s.call(t, "GET", path(roomID, "/room"), alice, nil); r.str("state") != "expired" || r.str("token") != "" {
		t.Fatalf("after the window: %s", r.raw)
	}
	if st := s.stats(t, roomID); st.body["sold"].(float64) != 0 {
		t.Fatalf("refused purchases sold something: %s", st.raw)
	}
}

// TestAdmittedPurchasePassesTheGate: the admission gate, which sheds a
// stampede on a sale's last units, does not turn away a shopper the waiting
// room admitted: the room already meters them against the stock left, and a
// refusal would hold their unit until their window passed. Non-admitted
// requests use up the gate's budget first (multiple 1, one unit left).
func TestAdmittedPurchasePassesTheGate(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk, func(c *config.Config) { c.PurchaseTokens = false; c.AdmitMultiple = 1 })
	id := roomSale(t, s, 2, 100, t0.Add(-time.Second))
	roomPath, buyPath := "/api/v1/items/"+itoa(id)+"/room", "/api/v1/items/"+itoa(id)+"/purchase"
	ann, bob := mintToken(t, "ann"), mintToken(t, "bob")
	for _, tok := range []string{ann, bob} {
		check(t, s.join(t, id, tok), want{200, "", ""})
	}
	clk.Add(time.Second)                 // both admitted; the clock stays here, so the gate's window never rolls over
	buyAdmitted(t, s, id, roomPath, ann) // the gate now knows 1 unit is left
	check(t, s.call(t, "POST", buyPath, mintToken(t, "xan"), nil), want{403, "not_admitted", ""})
	check(t, s.call(t, "POST", buyPath, mintToken(t, "yul"), nil), want{503, "unavailable", ""}) // the gate's budget is spent
	buyAdmitted(t, s, id, roomPath, bob)
	if st := s.settle(t, id); st.body["sold"].(float64) != 2 || st.body["consistent"] != true {
		t.Fatalf("stats: %s", st.raw)
	}
}
