package app_test

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
)

// testPowBits is the base difficulty the tests' servers ask: real proofs,
// a few dozen hashes each.
const testPowBits = 4

// challenge asks s for a challenge for tok's shopper and sale id.
func (s *server) challenge(tb testing.TB, id int64, tok string, hdr ...string) (string, int) {
	tb.Helper()
	r := s.call(tb, "POST", "/api/v1/items/"+itoa(id)+"/challenge", tok, nil, hdr...)
	d, ok := r.body["difficulty"].(float64)
	if r.status != 200 || r.str("challenge") == "" || !ok {
		tb.Fatalf("challenge: %d %s", r.status, r.raw)
	}
	return r.str("challenge"), int(d)
}

// proof is a solved challenge of s for tok's shopper and sale id, as
// X-Proof-Of-Work carries it.
func (s *server) proof(tb testing.TB, id int64, tok string) string {
	tb.Helper()
	ch, d := s.challenge(tb, id, tok)
	return ch + ":" + pow.Solve(ch, d)
}

// join joins sale id's waiting room as the page does: a challenge, solved,
// then the join carrying the proof.
func (s *server) join(tb testing.TB, id int64, tok string) reply {
	tb.Helper()
	return s.call(tb, "POST", "/api/v1/items/"+itoa(id)+"/room", tok, nil, httpapi.ProofOfWorkHeader, s.proof(tb, id, tok))
}

// refusal checks that r is 403 proof_of_work_required and returns the fresh
// challenge and difficulty in its error.
func refusal(t *testing.T, r reply) (string, int) {
	t.Helper()
	check(t, r, want{403, "proof_of_work_required", ""})
	e := r.body["error"].(map[string]any)
	ch, _ := e["challenge"].(string)
	d, ok := e["difficulty"].(float64)
	if ch == "" || !ok {
		t.Fatalf("a refusal without a fresh challenge: %s", r.raw)
	}
	return ch, int(d)
}

// TestProofOfWork: a challenge solved with the rule of the issue pays for
// one join, on any server; every kind of bad proof is refused with a fresh
// challenge that pays for a join, and each refusal but a missing or expired
// proof costs the shopper one bit more next time.
func TestProofOfWork(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	a := start(t, clk)
	b := a.twin(t, clk)
	roomID, otherID := roomSale(t, a, 10, 5, t0.Add(time.Hour)), roomSale(t, a, 10, 5, t0.Add(time.Hour))
	alice, bob := mintToken(t, "alice"), mintToken(t, "bob")
	path := "/api/v1/items/" + itoa(roomID)

	check(t, a.call(t, "POST", path+"/challenge", "", nil), want{401, "unauthenticated", ""})
	check(t, a.call(t, "POST", "/api/v1/items/999999/challenge", alice, nil), want{404, "item_not_found", ""})
	check(t, a.call(t, "POST", "/api/v1/items/x/challenge", alice, nil), want{404, "item_not_found", ""})
	r := a.call(t, "POST", path+"/challenge", alice, nil)
	if _, ok := r.body["challenge"].(string); r.status != 200 || !ok || len(r.body) != 2 ||
		r.body["difficulty"] != float64(testPowBits) || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("a challenge: %d %v %s", r.status, r.header, r.raw)
	}
	// Solved as the issue states it, it pays for a join on the other server.
	ch := r.str("challenge")
	x := 0
	for pow.LeadingZeros(ch, strconv.Itoa(x)) < testPowBits {
		x++
	}
	solved := ch + ":" + strconv.Itoa(x)
	if r := b.call(t, "POST", path+"/room", alice, nil, httpapi.ProofOfWorkHeader, solved); r.status != 200 || r.str("state") != "waiting" {
		t.Fatalf("join with a solved challenge: %d %s", r.status, r.raw)
	}

	bobs := a.proof(t, roomID, bob)
	otherSale := a.proof(t, otherID, alice)
	forged := pow.IssuerFor("another-secret-0123456789abcdef0123456789", time.Now).Issue("alice", loopback, roomID, 0) + ":0"
	expired := pow.IssuerFor(jwtSecret, func() time.Time { return time.Now().Add(-3 * time.Minute) }).Issue("alice", loopback, roomID, 0) + ":0"
	fails := 0
	for _, tc := range []struct {
		name  string
		proof func() string
		fails bool // counts against alice
	}{
		{"missing", func() string { return "" }, false},
		{"malformed", func() string { return "not a proof" }, true},
		{"unsolved", func() string { ch, _ := a.challenge(t, roomID, alice); return ch }, true},
		{"forged", func() string { return forged }, true},
		{"expired", func() string { return expired }, false},
		{"someone else's", func() string { return bobs }, true},
		{"another sale's", func() string { return otherSale }, true},
		{"too weak", func() string { ch, d := a.challenge(t, roomID, alice); return ch + ":" + unsolved(ch, d) }, true},
		{"reused", func() string { return solved }, true},
	} {
		var hdr []string
		if p := tc.proof(); p != "" {
			hdr = []string{httpapi.ProofOfWorkHeader, p}
		}
		fresh, d := refusal(t, a.call(t, "POST", path+"/room", alice, nil, hdr...))
		if tc.fails {
			fails++
		}
		if d != testPowBits+fails {
			t.Fatalf("%s: the fresh challenge asks %d bits, want %d after %d failures", tc.name, d, testPowBits+fails, fails)
		}
		if r := a.call(t, "POST", path+"/room", alice, nil, httpapi.ProofOfWorkHeader, fresh+":"+pow.Solve(fresh, d)); r.status != 200 {
			t.Fatalf("%s: the fresh challenge did not pay for a join: %d %s", tc.name, r.status, r.raw)
		}
	}
	// Unknown sales are unknown whatever the proof.
	check(t, a.call(t, "POST", "/api/v1/items/999999/room", alice, nil), want{404, "item_not_found", ""})
	check(t, a.call(t, "POST", "/api/v1/items/x/room", alice, nil, httpapi.ProofOfWorkHeader, solved), want{404, "item_not_found", ""})
	if st := a.call(t, "GET", path+"/room", alice, nil); st.str("state") != "waiting" || st.body["queued"] != float64(1) {
		t.Fatalf("alice joined once, whatever she sent: %s", st.raw)
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
	clk := newClock(t0)
	s := start(t, clk, func(c *config.Config) { c.TrustedProxies = []string{"127.0.0.1"} })
	cfg := s.cfg
	cfg.HTTPAddr, cfg.TrustedProxies = "127.0.0.1:0", nil
	direct := launch(t, clk, quiet(), cfg, s.db)
	id := roomSale(t, s, 10, 5, t0.Add(time.Hour))
	alice := mintToken(t, "alice")
	from := func(ip string) []string { return []string{"X-Forwarded-For", ip} }
	solved := func(ip string) string {
		ch, d := s.challenge(t, id, alice, from(ip)...)
		return ch + ":" + pow.Solve(ch, d)
	}
	join := func(srv *server, ip, proof string) reply {
		return srv.call(t, "POST", "/api/v1/items/"+itoa(id)+"/room", alice, nil, append(from(ip), httpapi.ProofOfWorkHeader, proof)...)
	}
	elsewhere := func(r reply) string {
		t.Helper()
		fresh, d := refusal(t, r)
		if msg, _ := r.body["error"].(map[string]any)["message"].(string); d != testPowBits || !strings.Contains(msg, "another network") {
			t.Fatalf("a proof from another network: asked %d bits (want %d, no failure counted): %s", d, testPowBits, r.raw)
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
				if r := join(s, step.ip, step.proof); r.status != 200 || r.str("state") != "waiting" {
					t.Fatalf("a proof spent from its own network (%s): %d %s", step.ip, r.status, r.raw)
				}
			}
		})
	}
	// Without a trusted proxy the header names nothing: every request is
	// from 127.0.0.1, whatever it claims.
	elsewhere(join(direct, "203.0.113.7", solved("203.0.113.7")))
	if r := join(direct, "198.51.100.7", s.proof(t, id, alice)); r.status != 200 {
		t.Fatalf("a challenge fetched and spent from 127.0.0.1, claiming two networks: %d %s", r.status, r.raw)
	}
}

// unsolved is an x that does not solve challenge at d bits.
func unsolved(challenge string, d int) string {
	for x := 0; ; x++ {
		if pow.LeadingZeros(challenge, strconv.Itoa(x)) < d {
			return strconv.Itoa(x)
		}
	}
}

// TestProofOfWorkPricesNetworks: behind a trusted proxy, a /24 whose
// accounts ask for challenges in numbers is asked more, one bit per
// doubling beyond 30 shoppers a minute (a HyperLogLog: the 121st may read
// as the 120th), from any of its addresses and for a join too; another
// network is asked the base.
func TestProofOfWorkPricesNetworks(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk, func(c *config.Config) { c.TrustedProxies = []string{"127.0.0.1"} })
	id := roomSale(t, s, 10, 5, t0.Add(time.Hour))
	var seq []int
	for i := range 130 {
		_, d := s.challenge(t, id, mintToken(t, "farm"+strconv.Itoa(i)), "X-Forwarded-For", fmt.Sprintf("203.0.113.%d", i%250+1))
		seq = append(seq, d)
	}
	if seq[29] != testPowBits || seq[30] != testPowBits+1 || seq[60] != testPowBits+2 || seq[125] != testPowBits+3 {
		t.Fatalf("the farm's difficulties: %v", seq)
	}
	if _, d := s.challenge(t, id, mintToken(t, "alice"), "X-Forwarded-For", "198.51.100.7"); d != testPowBits {
		t.Fatalf("another network is asked %d bits, want %d", d, testPowBits)
	}
	// A join from the farm's network is refused at its price.
	r := s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/room", mintToken(t, "farm0"), nil, "X-Forwarded-For", "203.0.113.200")
	if _, d := refusal(t, r); d != testPowBits+3 {
		t.Fatalf("a join from the farm is asked %d bits, want %d", d, testPowBits+3)
	}
}

// TestProofOfWorkOff: SECKILL_POW=off lets a join through without a proof;
// challenges are still handed out.
func TestProofOfWorkOff(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk, func(c *config.Config) { c.PoW = false })
	id := roomSale(t, s, 10, 5, t0.Add(time.Hour))
	alice := mintToken(t, "alice")
	if r := s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/room", alice, nil); r.status != 200 || r.str("state") != "waiting" {
		t.Fatalf("join without a proof, PoW off: %d %s", r.status, r.raw)
	}
	if ch, d := s.challenge(t, id, alice); ch == "" || d != testPowBits {
		t.Fatalf("challenge with PoW off: %q at %d bits", ch, d)
	}
}

// TestProofOfWorkMetrics: the guard counts the proofs it judged by result,
// and the difficulties it asked, so an operator sees bots trying their luck.
func TestProofOfWorkMetrics(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk)
	id := roomSale(t, s, 10, 5, t0.Add(time.Hour))
	tok := mintToken(t, "metered")
	proof := s.proof(t, id, tok)
	for _, hdr := range []string{"", proof, proof} { // missing, accepted, spent
		s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/room", tok, nil, httpapi.ProofOfWorkHeader, hdr)
	}
	page := s.call(t, "GET", "/metrics", "", nil).raw
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
