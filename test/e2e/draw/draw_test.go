package draw

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestDrawIsVerifiableAndPassesEveryUnitOn runs a draw from the commitment
// to the last unit: entries (one per shopper, a second entry changes the
// variant), the draw recomputed from what it publishes, purchases only by
// those drawn, for their variant, within their window, and every unit a
// winner leaves (by letting the window pass or cancelling) passed to the
// next in the same ranking until all are sold.
func TestDrawIsVerifiableAndPassesEveryUnitOn(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk)
	created := s.Call(t, "POST", "/api/v1/admin/items", e2etest.AdminToken, e2etest.DrawBody(e2etest.T0, e2etest.Size("EU 41", 3), e2etest.Size("EU 42", 2)))
	if created.Status != 201 {
		t.Fatalf("create draw: %s", created.Raw)
	}
	id, sizes := int64(e2etest.Num(created.Body, "id")), e2etest.VariantIDs(t, created)
	if created.Str("mode") != "draw" || created.Body["purchase_window_seconds"] != 60.0 ||
		created.Str("starts_at") != e2etest.T0.Add(10*time.Minute).Format(time.RFC3339) {
		t.Fatalf("created draw: %s", created.Raw)
	}
	path := "/api/v1/items/" + e2etest.Itoa(id)
	open := s.Draw(t, id)
	if open.Phase != "entries_open" || open.SeedSHA256 == nil || open.Seed != nil || len(e2etest.Unhex(t, open.Salt)) != 16 {
		t.Fatalf("draw while entries are open: %+v", open)
	}
	salt := e2etest.Unhex(t, open.Salt)

	tokens, entryOf := map[string]string{}, map[string]string{}
	users := make([]string, 14)
	for i := range users {
		u := fmt.Sprintf("drawer-%02d", i)
		users[i], tokens[u] = u, s.Login(t, u)
		size := sizes["EU 41"]
		if i%3 == 0 {
			size = sizes["EU 42"]
		}
		if i == 1 { // first enters for the other size, then changes
			r := s.Enter(t, id, tokens[u], sizes["EU 42"])
			if r.Status != 200 {
				t.Fatalf("enter: %d %s", r.Status, r.Raw)
			}
		}
		r := s.Enter(t, id, tokens[u], size)
		secret := r.Str("entry_secret")
		want := e2etest.Sha(salt, e2etest.Unhex(t, &secret), []byte(u))
		if r.Status != 200 || r.Str("entry_id") != want || int64(e2etest.Num(r.Body, "variant_id")) != size ||
			r.Str("commitment") != *open.SeedSHA256 || r.Str("salt") != *open.Salt {
			t.Fatalf("enter %s: %d %s; want entry_id %s", u, r.Status, r.Raw, want)
		}
		entryOf[r.Str("entry_id")] = u
	}
	if r := s.Call(t, "POST", path+"/entry", tokens["drawer-02"], map[string]any{"variant_id": sizes["EU 41"]}); r.Status != 403 ||
		r.ErrCode() != "proof_of_work_required" {
		t.Fatalf("entry without a proof of work: %d %s", r.Status, r.Raw)
	}
	if r := s.Call(t, "GET", path+"/entry", tokens["drawer-01"], nil); r.Body["result"] != nil ||
		int64(e2etest.Num(r.Body, "variant_id")) != sizes["EU 41"] {
		t.Fatalf("entry before the draw: %s", r.Raw)
	}
	if r := s.Enter(t, id, tokens["drawer-01"], 999999); r.Status != 404 {
		t.Fatalf("entry for no such variant: %d %s", r.Status, r.Raw)
	}

	clk.Add(10 * time.Minute)
	if r := s.Enter(t, id, s.Login(t, "late"), sizes["EU 41"]); r.Status != 409 ||
		r.ErrCode() != "entries_closed" {
		t.Fatalf("entry after the close: %d %s", r.Status, r.Raw)
	}
	var d e2etest.PublishedDraw
	testenv.WaitFor(t, 10*time.Second, func() bool { d = s.Draw(t, id); return d.Phase == "drawn" }, "the draw never ran")
	if *d.SeedSHA256 != *open.SeedSHA256 || *d.Salt != *open.Salt || len(d.Entries) != len(users) {
		t.Fatalf("the drawn draw changed its commitment or lost entries: %+v", d)
	}

	// The winners are the first units of each ranking, recomputed here.
	rank := e2etest.Rankings(t, d)
	var want []e2etest.Ticket
	for _, v := range []int64{sizes["EU 41"], sizes["EU 42"]} {
		for _, e := range rank[v][:d.Units()[v]] {
			want = append(want, e2etest.Ticket{EntryID: e, VariantID: v})
		}
	}
	sort.Slice(want, func(i, j int) bool { return want[i].EntryID < want[j].EntryID })
	got := append([]e2etest.Ticket(nil), d.Winners...)
	sort.Slice(got, func(i, j int) bool { return got[i].EntryID < got[j].EntryID })
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("published winners %v, recomputed %v", got, want)
	}

	// Everyone is told at once where they stand.
	look := func(u string) e2etest.Reply { return s.Call(t, "GET", path+"/entry", tokens[u], nil) }
	for v, r := range rank {
		for i, e := range r {
			got := look(entryOf[e])
			wantResult, wantPos := "won", i+1
			if i >= d.Units()[v] {
				wantResult, wantPos = "waitlist", i+1-d.Units()[v]
			}
			if got.Str("result") != wantResult || int(e2etest.Num(got.Body, "position")) != wantPos {
				t.Fatalf("%s (place %d of %d): %s; want %s at %d", entryOf[e], i+1, v, got.Raw, wantResult, wantPos)
			}
		}
	}

	buy := func(u string, v int64) e2etest.Reply {
		e := look(u)
		return s.Call(t, "POST", path+"/purchase", tokens[u], map[string]any{"variant_id": v, "quantity": 1},
			"X-Purchase-Token", e.Str("purchase_token"))
	}
	eu41, eu42 := rank[sizes["EU 41"]], rank[sizes["EU 42"]]
	if r := buy(entryOf[eu41[3]], sizes["EU 41"]); r.Status != 403 || r.ErrCode() != "not_drawn" {
		t.Fatalf("purchase by a waitlisted shopper: %d %s", r.Status, r.Raw)
	}
	if r := buy(entryOf[eu41[0]], sizes["EU 42"]); r.Status != 403 || r.ErrCode() != "not_drawn" {
		t.Fatalf("purchase of the other size by a winner: %d %s", r.Status, r.Raw)
	}
	// Winners 0 and 1 of EU 41 buy; winner 2 lets the window pass; winner
	// 0 of EU 42 buys, then cancels; winner 1 buys.
	var cancelled string
	for _, b := range []struct {
		e string
		v int64
	}{{eu41[0], sizes["EU 41"]}, {eu41[1], sizes["EU 41"]}, {eu42[0], sizes["EU 42"]}, {eu42[1], sizes["EU 42"]}} {
		// The draw commits in MySQL before it publishes its offers in
		// Redis: until they land, a winner's purchase is refused as
		// not_drawn, and refused it changes nothing, so it is tried again.
		var r e2etest.Reply
		testenv.WaitFor(t, 10*time.Second, func() bool {
			r = buy(entryOf[b.e], b.v)
			return r.Status != 403 || r.ErrCode() != "not_drawn"
		}, "the offer of winner %s never reached Redis", entryOf[b.e])
		if r.Status != 202 {
			t.Fatalf("purchase by winner %s: %d %s", entryOf[b.e], r.Status, r.Raw)
		}
		if b.e == eu42[0] {
			cancelled = r.Str("order_id")
		}
	}
	waitOrders(t, s, id, 3)
	if r := s.Call(t, "POST", "/api/v1/orders/"+cancelled+"/cancel", tokens[entryOf[eu42[0]]], nil); r.Status != 200 {
		t.Fatalf("cancel: %d %s", r.Status, r.Raw)
	}
	// The cancelled unit goes to EU 42's next; the canceller cannot take it back.
	testenv.WaitFor(t, 10*time.Second, func() bool { return look(entryOf[eu42[2]]).Str("result") == "won" },
		"EU 42's cancelled unit was not passed on")
	if r := buy(entryOf[eu42[0]], sizes["EU 42"]); r.Status != 403 {
		t.Fatalf("a winner bought again after cancelling: %d %s", r.Status, r.Raw)
	}
	if r := buy(entryOf[eu42[2]], sizes["EU 42"]); r.Status != 202 {
		t.Fatalf("purchase by EU 42's backfilled shopper: %d %s", r.Status, r.Raw)
	}
	// EU 41's third winner lets the window pass: the unit goes to the next.
	if r := look(entryOf[eu41[4]]); r.Str("result") != "waitlist" || e2etest.Num(r.Body, "position") != 2 {
		t.Fatalf("EU 41's fifth before any unit came back: %s", r.Raw)
	}
	clk.Add(61 * time.Second)
	testenv.WaitFor(t, 10*time.Second, func() bool { return look(entryOf[eu41[3]]).Str("result") == "won" },
		"EU 41's unbought unit was not passed on")
	if r := buy(entryOf[eu41[2]], sizes["EU 41"]); r.Status != 403 {
		t.Fatalf("a winner bought after the window: %d %s", r.Status, r.Raw)
	}
	// Waitlist places are read at most once a second per server.
	testenv.WaitFor(t, 10*time.Second, func() bool {
		r := look(entryOf[eu41[4]])
		return r.Str("result") == "waitlist" && e2etest.Num(r.Body, "position") == 1
	}, "EU 41's fifth did not move up the waitlist when a unit passed on")
	if r := buy(entryOf[eu41[3]], sizes["EU 41"]); r.Status != 202 {
		t.Fatalf("purchase by EU 41's backfilled shopper: %d %s", r.Status, r.Raw)
	}

	// Every unit is sold, each to a different shopper, in ranking order.
	waitOrders(t, s, id, 6) // five active, one cancelled
	var holders []struct {
		UserID    string
		VariantID int64
	}
	if err := s.Db.Gorm.Raw("SELECT user_id, variant_id FROM orders WHERE item_id = ? AND status <> 'cancelled' ORDER BY user_id", id).
		Scan(&holders).Error; err != nil {
		t.Fatal(err)
	}
	wantHolders := map[string]int64{entryOf[eu41[0]]: sizes["EU 41"], entryOf[eu41[1]]: sizes["EU 41"], entryOf[eu41[3]]: sizes["EU 41"],
		entryOf[eu42[1]]: sizes["EU 42"], entryOf[eu42[2]]: sizes["EU 42"]}
	if len(holders) != len(wantHolders) {
		t.Fatalf("active orders %v, want %v", holders, wantHolders)
	}
	for _, h := range holders {
		if wantHolders[h.UserID] != h.VariantID {
			t.Fatalf("active orders %v, want %v", holders, wantHolders)
		}
	}
	if st := s.Settle(t, id); e2etest.Num(st.Body, "stock") != 0 {
		t.Fatalf("stock left after every unit sold: %s", st.Raw)
	}
	// Once the sale ends, those never reached have lost.
	clk.Add(3 * time.Hour)
	if r := s.Call(t, "GET", path+"/entry", s.Login(t, entryOf[eu41[5]]), nil); r.Str("result") != "lost" || r.Body["position"] != nil {
		t.Fatalf("an unreached entry after the end: %s", r.Raw)
	}
}

// waitOrders waits until MySQL holds n orders of the sale, any status.
func waitOrders(tb testing.TB, s *e2etest.Server, id int64, n int) {
	tb.Helper()
	testenv.WaitFor(tb, 10*time.Second, func() bool {
		var got int
		if err := s.Db.Gorm.Raw("SELECT COUNT(*) FROM orders WHERE item_id = ?", id).Scan(&got).Error; err != nil {
			tb.Fatal(err)
		}
		return got >= n
	}, "orders were not persisted")
}
