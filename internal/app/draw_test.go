package app_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/httpapi"
	"github.com/seckill/seckill/internal/testenv"
)

// drawBody is a draw of sneakers in sizes: entries for ten minutes from
// opens, a minute to buy, and the sale on for two hours after the close.
func drawBody(opens time.Time, variants ...map[string]any) map[string]any {
	b := dropBody(opens, variants...)
	close := opens.Add(10 * time.Minute)
	delete(b, "starts_at")
	delete(b, "per_user_limit")
	b["mode"], b["purchase_window_seconds"] = "draw", 60
	b["entries_open_at"], b["entries_close_at"] = opens.Format(time.RFC3339Nano), close.Format(time.RFC3339Nano)
	b["ends_at"] = close.Add(2 * time.Hour).Format(time.RFC3339Nano)
	return b
}

// publishedDraw is GET /draw as a shopper reads it, with the rule of the
// README recomputed here, apart from the server's code.
type publishedDraw struct {
	Phase      string  `json:"phase"`
	SeedSHA256 *string `json:"seed_sha256"`
	Salt       *string `json:"salt"`
	Seed       *string `json:"seed"`
	Variants   []struct {
		VariantID  int64 `json:"variant_id"`
		StockTotal int   `json:"stock_total"`
	} `json:"variants"`
	Entries []ticket `json:"entries"`
	Winners []ticket `json:"winners"`
}

type ticket struct {
	EntryID   string `json:"entry_id"`
	VariantID int64  `json:"variant_id"`
}

func sha(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func unhex(tb testing.TB, s *string) []byte {
	tb.Helper()
	if s == nil {
		tb.Fatal("a published value is missing")
	}
	b, err := hex.DecodeString(*s)
	if err != nil {
		tb.Fatalf("not hex: %q", *s)
	}
	return b
}

// rankings recomputes every variant's ranking from the published draw: by
// hex(SHA-256(seed || ":" || entry_id)) ascending. It checks the seed
// against the commitment first.
func (d publishedDraw) rankings(tb testing.TB) map[int64][]string {
	tb.Helper()
	seed := unhex(tb, d.Seed)
	if sha(seed) != *d.SeedSHA256 {
		tb.Fatalf("SHA-256 of the seed %s is not the commitment %s", *d.Seed, *d.SeedSHA256)
	}
	out := map[int64][]string{}
	for _, e := range d.Entries {
		out[e.VariantID] = append(out[e.VariantID], e.EntryID)
	}
	for _, r := range out {
		sort.Slice(r, func(i, j int) bool {
			return sha(seed, []byte(":"+r[i])) < sha(seed, []byte(":"+r[j]))
		})
	}
	return out
}

func (d publishedDraw) units(v int64) int {
	for _, u := range d.Variants {
		if u.VariantID == v {
			return u.StockTotal
		}
	}
	return 0
}

func (s *server) draw(tb testing.TB, id int64) publishedDraw {
	tb.Helper()
	r := s.call(tb, "GET", "/api/v1/items/"+itoa(id)+"/draw", "", nil)
	if r.status != 200 {
		tb.Fatalf("GET draw: %d %s", r.status, r.raw)
	}
	var d publishedDraw
	if err := json.NewDecoder(bytes.NewBufferString(r.raw)).Decode(&d); err != nil {
		tb.Fatal(err)
	}
	return d
}

// TestDrawIsVerifiableAndPassesEveryUnitOn runs a draw from the commitment
// to the last unit: entries (one per shopper, a second entry changes the
// variant), the draw recomputed from what it publishes, purchases only by
// those drawn, for their variant, within their window, and every unit a
// winner leaves (by letting the window pass or cancelling) passed to the
// next in the same ranking until all are sold.
func TestDrawIsVerifiableAndPassesEveryUnitOn(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk)
	created := s.call(t, "POST", "/api/v1/admin/items", adminToken, drawBody(t0, size("EU 41", 3), size("EU 42", 2)))
	if created.status != 201 {
		t.Fatalf("create draw: %s", created.raw)
	}
	id, sizes := int64(num(created.body, "id")), variantIDs(t, created)
	if created.str("mode") != "draw" || created.body["purchase_window_seconds"] != 60.0 ||
		created.str("starts_at") != t0.Add(10*time.Minute).Format(time.RFC3339) {
		t.Fatalf("created draw: %s", created.raw)
	}
	path := "/api/v1/items/" + itoa(id)
	open := s.draw(t, id)
	if open.Phase != "entries_open" || open.SeedSHA256 == nil || open.Seed != nil || len(unhex(t, open.Salt)) != 16 {
		t.Fatalf("draw while entries are open: %+v", open)
	}
	salt := unhex(t, open.Salt)

	tokens, entryOf := map[string]string{}, map[string]string{}
	users := make([]string, 14)
	for i := range users {
		u := fmt.Sprintf("drawer-%02d", i)
		users[i], tokens[u] = u, s.login(t, u)
		size := sizes["EU 41"]
		if i%3 == 0 {
			size = sizes["EU 42"]
		}
		if i == 1 { // first enters for the other size, then changes
			r := s.enter(t, id, tokens[u], sizes["EU 42"])
			if r.status != 200 {
				t.Fatalf("enter: %d %s", r.status, r.raw)
			}
		}
		r := s.enter(t, id, tokens[u], size)
		secret := r.str("entry_secret")
		want := sha(salt, unhex(t, &secret), []byte(u))
		if r.status != 200 || r.str("entry_id") != want || int64(num(r.body, "variant_id")) != size ||
			r.str("commitment") != *open.SeedSHA256 || r.str("salt") != *open.Salt {
			t.Fatalf("enter %s: %d %s; want entry_id %s", u, r.status, r.raw, want)
		}
		entryOf[r.str("entry_id")] = u
	}
	if r := s.call(t, "POST", path+"/entry", tokens["drawer-02"], map[string]any{"variant_id": sizes["EU 41"]}); r.status != 403 ||
		r.errCode() != "proof_of_work_required" {
		t.Fatalf("entry without a proof of work: %d %s", r.status, r.raw)
	}
	if r := s.call(t, "GET", path+"/entry", tokens["drawer-01"], nil); r.body["result"] != nil ||
		int64(num(r.body, "variant_id")) != sizes["EU 41"] {
		t.Fatalf("entry before the draw: %s", r.raw)
	}
	if r := s.enter(t, id, tokens["drawer-01"], 999999); r.status != 404 {
		t.Fatalf("entry for no such variant: %d %s", r.status, r.raw)
	}

	clk.Add(10 * time.Minute)
	if r := s.enter(t, id, s.login(t, "late"), sizes["EU 41"]); r.status != 409 ||
		r.errCode() != "entries_closed" {
		t.Fatalf("entry after the close: %d %s", r.status, r.raw)
	}
	var d publishedDraw
	testenv.WaitFor(t, 10*time.Second, func() bool { d = s.draw(t, id); return d.Phase == "drawn" }, "the draw never ran")
	if *d.SeedSHA256 != *open.SeedSHA256 || *d.Salt != *open.Salt || len(d.Entries) != len(users) {
		t.Fatalf("the drawn draw changed its commitment or lost entries: %+v", d)
	}

	// The winners are the first units of each ranking, recomputed here.
	rank := d.rankings(t)
	var want []ticket
	for _, v := range []int64{sizes["EU 41"], sizes["EU 42"]} {
		for _, e := range rank[v][:d.units(v)] {
			want = append(want, ticket{e, v})
		}
	}
	sort.Slice(want, func(i, j int) bool { return want[i].EntryID < want[j].EntryID })
	got := append([]ticket(nil), d.Winners...)
	sort.Slice(got, func(i, j int) bool { return got[i].EntryID < got[j].EntryID })
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("published winners %v, recomputed %v", got, want)
	}

	// Everyone is told at once where they stand.
	look := func(u string) reply { return s.call(t, "GET", path+"/entry", tokens[u], nil) }
	for v, r := range rank {
		for i, e := range r {
			got := look(entryOf[e])
			wantResult, wantPos := "won", i+1
			if i >= d.units(v) {
				wantResult, wantPos = "waitlist", i+1-d.units(v)
			}
			if got.str("result") != wantResult || int(num(got.body, "position")) != wantPos {
				t.Fatalf("%s (place %d of %d): %s; want %s at %d", entryOf[e], i+1, v, got.raw, wantResult, wantPos)
			}
		}
	}

	buy := func(u string, v int64) reply {
		e := look(u)
		return s.call(t, "POST", path+"/purchase", tokens[u], map[string]any{"variant_id": v, "quantity": 1},
			"X-Purchase-Token", e.str("purchase_token"))
	}
	eu41, eu42 := rank[sizes["EU 41"]], rank[sizes["EU 42"]]
	if r := buy(entryOf[eu41[3]], sizes["EU 41"]); r.status != 403 || r.errCode() != "not_drawn" {
		t.Fatalf("purchase by a waitlisted shopper: %d %s", r.status, r.raw)
	}
	if r := buy(entryOf[eu41[0]], sizes["EU 42"]); r.status != 403 || r.errCode() != "not_drawn" {
		t.Fatalf("purchase of the other size by a winner: %d %s", r.status, r.raw)
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
		var r reply
		testenv.WaitFor(t, 10*time.Second, func() bool {
			r = buy(entryOf[b.e], b.v)
			return r.status != 403 || r.errCode() != "not_drawn"
		}, "the offer of winner %s never reached Redis", entryOf[b.e])
		if r.status != 202 {
			t.Fatalf("purchase by winner %s: %d %s", entryOf[b.e], r.status, r.raw)
		}
		if b.e == eu42[0] {
			cancelled = r.str("order_id")
		}
	}
	waitOrders(t, s, id, 3)
	if r := s.call(t, "POST", "/api/v1/orders/"+cancelled+"/cancel", tokens[entryOf[eu42[0]]], nil); r.status != 200 {
		t.Fatalf("cancel: %d %s", r.status, r.raw)
	}
	// The cancelled unit goes to EU 42's next; the canceller cannot take it back.
	testenv.WaitFor(t, 10*time.Second, func() bool { return look(entryOf[eu42[2]]).str("result") == "won" },
		"EU 42's cancelled unit was not passed on")
	if r := buy(entryOf[eu42[0]], sizes["EU 42"]); r.status != 403 {
		t.Fatalf("a winner bought again after cancelling: %d %s", r.status, r.raw)
	}
	if r := buy(entryOf[eu42[2]], sizes["EU 42"]); r.status != 202 {
		t.Fatalf("purchase by EU 42's backfilled shopper: %d %s", r.status, r.raw)
	}
	// EU 41's third winner lets the window pass: the unit goes to the next.
	if r := look(entryOf[eu41[4]]); r.str("result") != "waitlist" || num(r.body, "position") != 2 {
		t.Fatalf("EU 41's fifth before any unit came back: %s", r.raw)
	}
	clk.Add(61 * time.Second)
	testenv.WaitFor(t, 10*time.Second, func() bool { return look(entryOf[eu41[3]]).str("result") == "won" },
		"EU 41's unbought unit was not passed on")
	if r := buy(entryOf[eu41[2]], sizes["EU 41"]); r.status != 403 {
		t.Fatalf("a winner bought after the window: %d %s", r.status, r.raw)
	}
	// Waitlist places are read at most once a second per server.
	testenv.WaitFor(t, 10*time.Second, func() bool {
		r := look(entryOf[eu41[4]])
		return r.str("result") == "waitlist" && num(r.body, "position") == 1
	}, "EU 41's fifth did not move up the waitlist when a unit passed on")
	if r := buy(entryOf[eu41[3]], sizes["EU 41"]); r.status != 202 {
		t.Fatalf("purchase by EU 41's backfilled shopper: %d %s", r.status, r.raw)
	}

	// Every unit is sold, each to a different shopper, in ranking order.
	waitOrders(t, s, id, 6) // five active, one cancelled
	var holders []struct {
		UserID    string
		VariantID int64
	}
	if err := s.db.Gorm.Raw("SELECT user_id, variant_id FROM orders WHERE item_id = ? AND status <> 'cancelled' ORDER BY user_id", id).
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
	if st := s.settle(t, id); num(st.body, "stock") != 0 {
		t.Fatalf("stock left after every unit sold: %s", st.raw)
	}
	// Once the sale ends, those never reached have lost.
	clk.Add(3 * time.Hour)
	if r := s.call(t, "GET", path+"/entry", s.login(t, entryOf[eu41[5]]), nil); r.str("result") != "lost" || r.body["position"] != nil {
		t.Fatalf("an unreached entry after the end: %s", r.raw)
	}
}

// enter enters a shopper in draw sale id for variant, paying with a proof
// of work as the page does; the server draws the entry secret.
func (s *server) enter(tb testing.TB, id int64, tok string, variant any) reply {
	tb.Helper()
	return s.enterWith(tb, id, tok, map[string]any{"variant_id": variant})
}

// enterWith enters with body as the entry's request.
func (s *server) enterWith(tb testing.TB, id int64, tok string, body map[string]any) reply {
	tb.Helper()
	return s.call(tb, "POST", "/api/v1/items/"+itoa(id)+"/entry", tok, body, httpapi.ProofOfWorkHeader, s.proof(tb, id, tok))
}

// waitOrders waits until MySQL holds n orders of the sale, any status.
func waitOrders(tb testing.TB, s *server, id int64, n int) {
	tb.Helper()
	testenv.WaitFor(tb, 10*time.Second, func() bool {
		var got int
		if err := s.db.Gorm.Raw("SELECT COUNT(*) FROM orders WHERE item_id = ?", id).Scan(&got).Error; err != nil {
			tb.Fatal(err)
		}
		return got >= n
	}, "orders were not persisted")
}
