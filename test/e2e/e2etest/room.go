package e2etest

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/httpapi"
	"github.com/seckill/seckill/internal/pow"
)

// RoomSale creates a sale of stock units (one per shopper) with a waiting
// room admitting rate shoppers a second, opening at opens.
func RoomSale(tb testing.TB, s *Server, stock, rate int, opens time.Time) int64 {
	tb.Helper()
	r := s.Call(tb, "POST", "/api/v1/admin/items", AdminToken, map[string]any{
		"name": "Storm jacket, waiting room", "price_cents": 9900, "stock_total": stock, "per_user_limit": 1,
		"room_rate": rate, "starts_at": opens.Format(time.RFC3339Nano), "ends_at": opens.Add(time.Hour).Format(time.RFC3339Nano),
	})
	if r.Status != 201 || r.Body["room_rate"] != float64(rate) {
		tb.Fatalf("create room sale: %d %s", r.Status, r.Raw)
	}
	return int64(r.Body["id"].(float64))
}

// BuyAdmitted fetches the shopper's admission token and buys with it.
func BuyAdmitted(t *testing.T, s *Server, id int64, roomPath, tok string) {
	t.Helper()
	r := s.Call(t, "GET", roomPath, tok, nil)
	if r.Str("state") != "admitted" || r.Str("token") == "" {
		t.Fatalf("expected admitted: %s", r.Raw)
	}
	Check(t, s.Call(t, "POST", "/api/v1/items/"+Itoa(id)+"/purchase", tok, nil, "X-Purchase-Token", r.Str("token")),
		Want{202, "", ""})
}

// OnlyOrder is the id of the shopper's one active order.
func OnlyOrder(t *testing.T, s *Server, tok string) string {
	t.Helper()
	r := s.Call(t, "GET", "/api/v1/orders", tok, nil)
	list, _ := r.Body["orders"].([]any)
	for _, o := range list {
		if m := o.(map[string]any); m["status"] != "cancelled" {
			return m["order_id"].(string)
		}
	}
	t.Fatalf("no active order: %s", r.Raw)
	return ""
}

// TestPowBits is the base difficulty the tests' servers ask: real proofs,
// a few dozen hashes each.
const TestPowBits = 4

// Challenge asks s for a challenge for tok's shopper and sale id.
func (s *Server) Challenge(tb testing.TB, id int64, tok string, hdr ...string) (string, int) {
	tb.Helper()
	r := s.Call(tb, "POST", "/api/v1/items/"+Itoa(id)+"/challenge", tok, nil, hdr...)
	d, ok := r.Body["difficulty"].(float64)
	if r.Status != 200 || r.Str("challenge") == "" || !ok {
		tb.Fatalf("challenge: %d %s", r.Status, r.Raw)
	}
	return r.Str("challenge"), int(d)
}

// Proof is a solved challenge of s for tok's shopper and sale id, as
// X-Proof-Of-Work carries it.
func (s *Server) Proof(tb testing.TB, id int64, tok string) string {
	tb.Helper()
	ch, d := s.Challenge(tb, id, tok)
	return ch + ":" + pow.Solve(ch, d)
}

// Join joins sale id's waiting room as the page does: a challenge, solved,
// then the join carrying the proof.
func (s *Server) Join(tb testing.TB, id int64, tok string) Reply {
	tb.Helper()
	return s.Call(tb, "POST", "/api/v1/items/"+Itoa(id)+"/room", tok, nil, httpapi.ProofOfWorkHeader, s.Proof(tb, id, tok))
}

// Refusal checks that r is 403 proof_of_work_required and returns the fresh
// challenge and difficulty in its error.
func Refusal(t *testing.T, r Reply) (string, int) {
	t.Helper()
	Check(t, r, Want{403, "proof_of_work_required", ""})
	e := r.Body["error"].(map[string]any)
	ch, _ := e["challenge"].(string)
	d, ok := e["difficulty"].(float64)
	if ch == "" || !ok {
		t.Fatalf("a refusal without a fresh challenge: %s", r.Raw)
	}
	return ch, int(d)
}

// Unsolved is an x that does not solve challenge at d bits.
func Unsolved(challenge string, d int) string {
	for x := 0; ; x++ {
		if pow.LeadingZeros(challenge, strconv.Itoa(x)) < d {
			return strconv.Itoa(x)
		}
	}
}

// BehindProxy makes a server trust 127.0.0.1, as a load balancer, so a
// test names each request's client in X-Forwarded-For.
func BehindProxy(c *config.Config) { c.TrustedProxies = []string{"127.0.0.1"} }

// From is the header naming ip as the client behind the trusted proxy.
func From(ip string, hdr ...string) []string { return append([]string{"X-Forwarded-For", ip}, hdr...) }

// Forge has accounts on the /24 of prefix (prefix+"1", prefix+"2", …) send
// proofs that cost nothing to sale id for a minute: at each of sixty ticks
// (tick moves the server's clock a second) every account sends one, of
// each kind in turn: garbage, a challenge under another key, a real
// challenge (the last refusal's) with an x that does not solve it, and
// another shopper's solved proof. Each is refused with a fresh challenge.
// Each account also asks free times for a challenge and joins free times
// without a proof at each tick.
func Forge(t *testing.T, s *Server, id int64, prefix string, accounts, free int, tick func()) {
	t.Helper()
	path := "/api/v1/items/" + Itoa(id) + "/room"
	ch, d := s.Challenge(t, id, MintToken(t, "solver"), From(prefix+"250")...)
	someoneElses := ch + ":" + pow.Solve(ch, d)
	other := pow.IssuerFor("another-secret-0123456789abcdef0123456789", time.Now)
	fresh := make([]string, accounts)
	for sec := range 60 {
		for i := range accounts {
			user, ip := fmt.Sprintf("forger%d", i), prefix+Itoa(int64(i+1))
			proof := map[int]string{0: "garbage:1", 1: other.Issue(user, prefix+"0/24", id, 0) + ":0", 3: someoneElses}[(sec+i)%4]
			if (sec+i)%4 == 2 {
				proof = "garbage:2"
				if fresh[i] != "" {
					proof = fresh[i] + ":" + Unsolved(fresh[i], TestPowBits)
				}
			}
			r := s.Call(t, "POST", path, MintToken(t, user), nil, From(ip, httpapi.ProofOfWorkHeader, proof)...)
			fresh[i], _ = Refusal(t, r)
			AskFree(t, s, id, user, ip, free)
		}
		tick()
	}
}

// AskFree has user at ip ask n times for a challenge to sale id and join
// its room n times without a proof: requests that cost no work.
func AskFree(t *testing.T, s *Server, id int64, user, ip string, n int) {
	t.Helper()
	tok := MintToken(t, user)
	for range n {
		s.Challenge(t, id, tok, From(ip)...)
		Refusal(t, s.Call(t, "POST", "/api/v1/items/"+Itoa(id)+"/room", tok, nil, From(ip)...))
	}
}

// BuyAfterEnd asks for a token and, should one still be issued, buys with
// it: after the end both steps must refuse.
func (s *Server) BuyAfterEnd(tb testing.TB, itemID int64, shopper string) Reply {
	tb.Helper()
	tok := MintToken(tb, shopper)
	pt := s.Call(tb, "GET", "/api/v1/items/"+Itoa(itemID)+"/purchase-token", tok, nil)
	if pt.Status != 200 {
		return pt
	}
	return s.Call(tb, "POST", "/api/v1/items/"+Itoa(itemID)+"/purchase", tok, nil, "X-Purchase-Token", pt.Str("token"))
}
