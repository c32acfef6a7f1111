package room

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/httpapi"
	"github.com/seckill/seckill/internal/pow"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestProofOfWork: a challenge solved with the rule of the issue pays for
// one join, on any server; every kind of bad proof is refused with a fresh
// challenge that pays for a join, and each refusal but a missing or expired
// proof costs the shopper one bit more next time.
func TestProofOfWork(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	a := e2etest.Start(t, clk)
	b := a.Twin(t, clk)
	roomID, otherID := e2etest.RoomSale(t, a, 10, 5, e2etest.T0.Add(time.Hour)), e2etest.RoomSale(t, a, 10, 5, e2etest.T0.Add(time.Hour))
	alice, bob := e2etest.MintToken(t, "alice"), e2etest.MintToken(t, "bob")
	path := "/api/v1/items/" + e2etest.Itoa(roomID)

	e2etest.Check(t, a.Call(t, "POST", path+"/challenge", "", nil), e2etest.Want{Status: 401, Code: "unauthenticated"})
	e2etest.Check(t, a.Call(t, "POST", "/api/v1/items/999999/challenge", alice, nil), e2etest.Want{Status: 404, Code: "item_not_found"})
	e2etest.Check(t, a.Call(t, "POST", "/api/v1/items/x/challenge", alice, nil), e2etest.Want{Status: 404, Code: "item_not_found"})
	r := a.Call(t, "POST", path+"/challenge", alice, nil)
	if _, ok := r.Body["challenge"].(string); r.Status != 200 || !ok || len(r.Body) != 2 ||
		r.Body["difficulty"] != float64(e2etest.TestPowBits) || r.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("a challenge: %d %v %s", r.Status, r.Header, r.Raw)
	}
	// Solved as the issue states it, it pays for a join on the other server.
	ch := r.Str("challenge")
	x := 0
	for pow.LeadingZeros(ch, strconv.Itoa(x)) < e2etest.TestPowBits {
		x++
	}
	solved := ch + ":" + strconv.Itoa(x)
	if r := b.Call(t, "POST", path+"/room", alice, nil, httpapi.ProofOfWorkHeader, solved); r.Status != 200 || r.Str("state") != "waiting" {
		t.Fatalf("join with a solved challenge: %d %s", r.Status, r.Raw)
	}

	bobs := a.Proof(t, roomID, bob)
	otherSale := a.Proof(t, otherID, alice)
	forged := pow.IssuerFor("another-secret-0123456789abcdef0123456789", time.Now).Issue("alice", loopback, roomID, 0) + ":0"
	expired := pow.IssuerFor(e2etest.JWTSecret, func() time.Time { return time.Now().Add(-3 * time.Minute) }).Issue("alice", loopback, roomID, 0) + ":0"
	fails := 0
	for _, tc := range []struct {
		name  string
		proof func() string
		fails bool // counts against alice
	}{
		{"missing", func() string { return "" }, false},
		{"malformed", func() string { return "not a proof" }, true},
		{"unsolved", func() string { ch, _ := a.Challenge(t, roomID, alice); return ch }, true},
		{"forged", func() string { return forged }, true},
		{"expired", func() string { return expired }, false},
		{"someone else's", func() string { return bobs }, true},
		{"another sale's", func() string { return otherSale }, true},
		{"too weak", func() string { ch, d := a.Challenge(t, roomID, alice); return ch + ":" + e2etest.Unsolved(ch, d) }, true},
		{"reused", func() string { return solved }, true},
	} {
		var hdr []string
		if p := tc.proof(); p != "" {
			hdr = []string{httpapi.ProofOfWorkHeader, p}
		}
		fresh, d := e2etest.Refusal(t, a.Call(t, "POST", path+"/room", alice, nil, hdr...))
		if tc.fails {
			fails++
		}
		if d != e2etest.TestPowBits+fails {
			t.Fatalf("%s: the fresh challenge asks %d bits, want %d after %d failures", tc.name, d, e2etest.TestPowBits+fails, fails)
		}
		if r := a.Call(t, "POST", path+"/room", alice, nil, httpapi.ProofOfWorkHeader, fresh+":"+pow.Solve(fresh, d)); r.Status != 200 {
			t.Fatalf("%s: the fresh challenge did not pay for a join: %d %s", tc.name, r.Status, r.Raw)
		}
	}
	// Unknown sales are unknown whatever the proof.
	e2etest.Check(t, a.Call(t, "POST", "/api/v1/items/999999/room", alice, nil), e2etest.Want{Status: 404, Code: "item_not_found"})
	e2etest.Check(t, a.Call(t, "POST", "/api/v1/items/x/room", alice, nil, httpapi.ProofOfWorkHeader, solved), e2etest.Want{Status: 404, Code: "item_not_found"})
	if st := a.Call(t, "GET", path+"/room", alice, nil); st.Str("state") != "waiting" || st.Body["queued"] != float64(1) {
		t.Fatalf("alice joined once, whatever she sent: %s", st.Raw)
	}
}

// loopback is the client network of the tests' requests, which come from
// 127.0.0.1 and pass no trusted proxy.
const loopback = "127.0.0.0/24"

// TestProofOfWorkBindsNetwork: a challenge pays only for a request from the
// client network it was handed to (the /24, the /64), as the trusted proxy
// names it; from another network it is refused, with no failure counted
// and a fresh challenge for the network asking, and is not used up. A
// server that trusts no proxy ignores X-Forwarded-For, so a client cannot
// name its network.
func TestProofOfWorkBindsNetwork(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk, func(c *config.Config) { c.TrustedProxies = []string{"127.0.0.1"} })
	cfg := s.Cfg
	cfg.HTTPAddr, cfg.TrustedProxies = "127.0.0.1:0", nil
	direct := e2etest.Launch(t, clk, e2etest.Quiet(), cfg, s.Db)
	id := e2etest.RoomSale(t, s, 10, 5, e2etest.T0.Add(time.Hour))
	alice := e2etest.MintToken(t, "alice")
	from := func(ip string) []string { return []string{"X-Forwarded-For", ip} }
	solved := func(ip string) string {
		ch, d := s.Challenge(t, id, alice, from(ip)...)
		return ch + ":" + pow.Solve(ch, d)
	}
	join := func(srv *e2etest.Server, ip, proof string) e2etest.Reply {
		return srv.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/room", alice, nil, append(from(ip), httpapi.ProofOfWorkHeader, proof)...)
	}
	elsewhere := func(r e2etest.Reply) string {
		t.Helper()
		fresh, d := e2etest.Refusal(t, r)
		if msg, _ := r.Body["error"].(map[string]any)["message"].(string); d != e2etest.TestPowBits || !strings.Contains(msg, "another network") {
			t.Fatalf("a proof from another network: asked %d bits (want %d, no failure counted): %s", d, e2etest.TestPowBits, r.Raw)
		}
		return fresh + ":" + pow.Solve(fresh, d)
	}
	for _, tc := range []struct{ name, issued, near, far string }{
		{"IPv4 /24", "203.0.113.7", "203.0.113.200", "198.51.100.7"},
		{"IPv6 /64", "2001:db8:1:2::5", "2001:db8:1:2:ffff::9", "2001:db8:1:3::5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			here := solved(tc.issued)
			// Fetched at issued, spent from far: refused, with a challenge
			// for far, which is refused at issued in turn.
			there := elsewhere(join(s, tc.far, here))
			fresh := elsewhere(join(s, tc.issued, there))
			for _, step := range []struct{ ip, proof string }{{tc.near, here}, {tc.far, there}, {tc.issued, fresh}} {
				if r := join(s, step.ip, step.proof); r.Status != 200 || r.Str("state") != "waiting" {
					t.Fatalf("a proof spent from its own network (%s): %d %s", step.ip, r.Status, r.Raw)
				}
			}
		})
	}
	// Without a trusted proxy the header names nothing: every request is
	// from 127.0.0.1, whatever it claims.
	elsewhere(join(direct, "203.0.113.7", solved("203.0.113.7")))
	if r := join(direct, "198.51.100.7", s.Proof(t, id, alice)); r.Status != 200 {
		t.Fatalf("a challenge fetched and spent from 127.0.0.1, claiming two networks: %d %s", r.Status, r.Raw)
	}
}

// TestProofOfWorkPricesNetworks: behind a trusted proxy, a /24 whose
// accounts ask for challenges in numbers is asked more, one bit per
// doubling beyond 30 shoppers a minute (a HyperLogLog: the 121st may read
// as the 120th), from any of its addresses and for a join too; another
// network is asked the base.
func TestProofOfWorkPricesNetworks(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk, func(c *config.Config) { c.TrustedProxies = []string{"127.0.0.1"} })
	id := e2etest.RoomSale(t, s, 10, 5, e2etest.T0.Add(time.Hour))
	var seq []int
	for i := range 130 {
		_, d := s.Challenge(t, id, e2etest.MintToken(t, "farm"+strconv.Itoa(i)), "X-Forwarded-For", fmt.Sprintf("203.0.113.%d", i%250+1))
		seq = append(seq, d)
	}
	if seq[29] != e2etest.TestPowBits || seq[30] != e2etest.TestPowBits+1 || seq[60] != e2etest.TestPowBits+2 || seq[125] != e2etest.TestPowBits+3 {
		t.Fatalf("the farm's difficulties: %v", seq)
	}
	if _, d := s.Challenge(t, id, e2etest.MintToken(t, "alice"), "X-Forwarded-For", "198.51.100.7"); d != e2etest.TestPowBits {
		t.Fatalf("another network is asked %d bits, want %d", d, e2etest.TestPowBits)
	}
	// A join from the farm's network is refused at its price.
	r := s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/room", e2etest.MintToken(t, "farm0"), nil, "X-Forwarded-For", "203.0.113.200")
	if _, d := e2etest.Refusal(t, r); d != e2etest.TestPowBits+3 {
		t.Fatalf("a join from the farm is asked %d bits, want %d", d, e2etest.TestPowBits+3)
	}
}

// TestProofOfWorkOff: SECKILL_POW=off lets a join through without a proof;
// challenges are still handed out.
func TestProofOfWorkOff(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk, func(c *config.Config) { c.PoW = false })
	id := e2etest.RoomSale(t, s, 10, 5, e2etest.T0.Add(time.Hour))
	alice := e2etest.MintToken(t, "alice")
	if r := s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/room", alice, nil); r.Status != 200 || r.Str("state") != "waiting" {
		t.Fatalf("join without a proof, PoW off: %d %s", r.Status, r.Raw)
	}
	if ch, d := s.Challenge(t, id, alice); ch == "" || d != e2etest.TestPowBits {
		t.Fatalf("challenge with PoW off: %q at %d bits", ch, d)
	}
}

// TestProofOfWorkMetrics: the guard counts the proofs it judged by result,
// and the difficulties it asked, so an operator sees bots trying their luck.
func TestProofOfWorkMetrics(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk)
	id := e2etest.RoomSale(t, s, 10, 5, e2etest.T0.Add(time.Hour))
	tok := e2etest.MintToken(t, "metered")
	proof := s.Proof(t, id, tok)
	for _, hdr := range []string{"", proof, proof} { // missing, accepted, spent
		s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/room", tok, nil, httpapi.ProofOfWorkHeader, hdr)
	}
	page := s.Call(t, "GET", "/metrics", "", nil).Raw
	for result, want := range map[string]string{"missing": "1", "accepted": "1", "spent": "1", "forged": "0"} {
		m := regexp.MustCompile(`seckill_pow_proofs_total\{result="` + result + `"\} (\d+)`).FindStringSubmatch(page)
		if m == nil || m[1] != want {
			t.Errorf("seckill_pow_proofs_total{result=%q} = %v, want %s", result, m, want)
		}
	}
	// One challenge asked for, two handed out in refusals.
	if m := regexp.MustCompile(`seckill_pow_difficulty_asked_count (\d+)`).FindStringSubmatch(page); m == nil || m[1] != "3" {
		t.Errorf("seckill_pow_difficulty_asked_count = %v, want 3", m)
	}
}
