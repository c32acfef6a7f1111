package app_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/httpapi"
	"github.com/seckill/seckill/internal/pow"
)

// behindProxy makes a server trust 127.0.0.1, as a load balancer, so a
// test names each request's client in X-Forwarded-For.
func behindProxy(c *config.Config) { c.TrustedProxies = []string{"127.0.0.1"} }

// from is the header naming ip as the client behind the trusted proxy.
func from(ip string, hdr ...string) []string { return append([]string{"X-Forwarded-For", ip}, hdr...) }

// forge has accounts on the /24 of prefix (prefix+"1", prefix+"2", …) send
// proofs that cost nothing to sale id for a minute: at each of sixty ticks
// (tick moves the server's clock a second) every account sends one, of
// each kind in turn: garbage, a challenge under another key, a real
// challenge (the last refusal's) with an x that does not solve it, and
// another shopper's solved proof. Each is refused with a fresh challenge.
// Each account also asks free times for a challenge and joins free times
// without a proof at each tick.
func forge(t *testing.T, s *server, id int64, prefix string, accounts, free int, tick func()) {
	t.Helper()
	path := "/api/v1/items/" + itoa(id) + "/room"
	ch, d := s.challenge(t, id, mintToken(t, "solver"), from(prefix+"250")...)
	someoneElses := ch + ":" + pow.Solve(ch, d)
	other := pow.IssuerFor("another-secret-0123456789abcdef0123456789", time.Now)
	fresh := make([]string, accounts)
	for sec := range 60 {
		for i := range accounts {
			user, ip := fmt.Sprintf("forger%d", i), prefix+itoa(int64(i+1))
			proof := map[int]string{0: "garbage:1", 1: other.Issue(user, prefix+"0/24", id, 0) + ":0", 3: someoneElses}[(sec+i)%4]
			if (sec+i)%4 == 2 {
				proof = "garbage:2"
				if fresh[i] != "" {
					proof = fresh[i] + ":" + unsolved(fresh[i], testPowBits)
				}
			}
			r := s.call(t, "POST", path, mintToken(t, user), nil, from(ip, httpapi.ProofOfWorkHeader, proof)...)
			fresh[i], _ = refusal(t, r)
			askFree(t, s, id, user, ip, free)
		}
		tick()
	}
}

// askFree has user at ip ask n times for a challenge to sale id and join
// its room n times without a proof: requests that cost no work.
func askFree(t *testing.T, s *server, id int64, user, ip string, n int) {
	t.Helper()
	tok := mintToken(t, user)
	for range n {
		s.challenge(t, id, tok, from(ip)...)
		refusal(t, s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/room", tok, nil, from(ip)...))
	}
}

// TestProofOfWorkFreeRequestsCostOthersNothing: two accounts on one /24
// each ask for five challenges and join five times without a proof every
// second for a minute (1,200 requests that cost no work); another shopper
// on that /24 is asked the base and joins, and each account pays for its
// own requests. Before, those requests raised the /24 by five bits.
func TestProofOfWorkFreeRequestsCostOthersNothing(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk, behindProxy)
	id := roomSale(t, s, 10, 5, t0.Add(time.Hour))
	for range 60 {
		for i := range 2 {
			askFree(t, s, id, fmt.Sprintf("freeloader%d", i), "203.0.113."+itoa(int64(i+1)), 5)
		}
		clk.Add(time.Second)
	}
	carol := mintToken(t, "carol")
	ch, d := s.challenge(t, id, carol, from("203.0.113.99")...)
	if d != testPowBits {
		t.Fatalf("carol on the freeloaders' /24 is asked %d bits, want the base %d", d, testPowBits)
	}
	r := s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/room", carol, nil, from("203.0.113.99", httpapi.ProofOfWorkHeader, ch+":"+pow.Solve(ch, d))...)
	if r.status != 200 || r.str("state") != "waiting" {
		t.Fatalf("carol's join: %d %s", r.status, r.raw)
	}
	// 600 asks in the minute just ended: six doublings beyond ten, on the account alone.
	if _, d := s.challenge(t, id, mintToken(t, "freeloader0"), from("203.0.113.1")...); d != testPowBits+6 {
		t.Fatalf("a freeloader is asked %d bits, want %d: its own six more", d, testPowBits+6)
	}
}

// TestProofOfWorkForgedProofsCostOthersNothing: ten accounts on one /24
// send proofs that cost nothing for a minute (600 of them); each pays for
// it in its own difficulty, up to eight bits more, while another shopper
// on that /24 is asked the base and joins.
func TestProofOfWorkForgedProofsCostOthersNothing(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk, behindProxy)
	id := roomSale(t, s, 10, 5, t0.Add(time.Hour))
	forge(t, s, id, "203.0.113.", 10, 0, func() { clk.Add(time.Second) })
	carol := mintToken(t, "carol")
	ch, d := s.challenge(t, id, carol, from("203.0.113.99")...)
	if d != testPowBits {
		t.Fatalf("carol on the forgers' /24 is asked %d bits, want the base %d", d, testPowBits)
	}
	r := s.call(t, "POST", "/api/v1/items/"+itoa(id)+"/room", carol, nil, from("203.0.113.99", httpapi.ProofOfWorkHeader, ch+":"+pow.Solve(ch, d))...)
	if r.status != 200 || r.str("state") != "waiting" {
		t.Fatalf("carol's join: %d %s", r.status, r.raw)
	}
	if _, d := s.challenge(t, id, mintToken(t, "forger0"), from("203.0.113.1")...); d != testPowBits+8 {
		t.Fatalf("a forger is asked %d bits, want %d: its own eight more", d, testPowBits+8)
	}
}

// TestProofOfWorkPaidFailures: a proof that cost work, resent once spent,
// counts its shopper among the network's failing ones: one shopper
// resending fifty times is one, ten are free, the eleventh raises the
// network's price a bit (one bit per doubling, to 20 bits at most: see
// internal/pow).
func TestProofOfWorkPaidFailures(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk, behindProxy)
	id := roomSale(t, s, 10, 5, t0.Add(time.Hour))
	path := "/api/v1/items/" + itoa(id) + "/room"
	spendTwice := func(user string, times int) {
		t.Helper()
		tok := mintToken(t, user)
		ch, d := s.challenge(t, id, tok, from("198.51.100.7")...)
		proof := from("198.51.100.7", httpapi.ProofOfWorkHeader, ch+":"+pow.Solve(ch, d))
		if r := s.call(t, "POST", path, tok, nil, proof...); r.status != 200 {
			t.Fatalf("%s's join: %d %s", user, r.status, r.raw)
		}
		for range times {
			r := s.call(t, "POST", path, tok, nil, proof...)
			if refusal(t, r); !strings.Contains(r.raw, "already used") {
				t.Fatalf("%s's proof resent: %s", user, r.raw)
			}
		}
	}
	asked := func() int {
		t.Helper()
		_, d := s.challenge(t, id, mintToken(t, "carol"), from("198.51.100.200")...)
		return d
	}
	spendTwice("mallory", 50)
	if d := asked(); d != testPowBits {
		t.Fatalf("after one shopper resent a spent proof 50 times, carol is asked %d, want the base %d", d, testPowBits)
	}
	for i := range 9 {
		spendTwice(fmt.Sprintf("shopper%d", i), 1)
	}
	if d := asked(); d != testPowBits {
		t.Fatalf("with ten failing shoppers carol is asked %d, want the base %d", d, testPowBits)
	}
	spendTwice("shopper9", 1)
	if d := asked(); d != testPowBits+1 {
		t.Fatalf("with eleven failing shoppers carol is asked %d, want %d", d, testPowBits+1)
	}
}

// TestProofOfWorkPricesA48: a farm asking for challenges from 600 /64s of
// one IPv6 /48 is asked the base from the first 400 (the /48 allows
// sixteen times a /64's 30 askers a minute, its askers being /64s, counted
// within about 1%), and is priced as that /48 beyond: a fresh /64 in it is
// asked a bit more, one of another /48 the base.
func TestProofOfWorkPricesA48(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk, behindProxy)
	id := roomSale(t, s, 10, 5, t0.Add(time.Hour))
	for i := range 600 {
		if _, d := s.challenge(t, id, mintToken(t, fmt.Sprintf("bot%d", i)), from(fmt.Sprintf("2001:db8:1:%x::1", i))...); i < 400 && d != testPowBits {
			t.Fatalf("the %dth /64 is asked %d, want the base while the /48 is within its allowance", i, d)
		}
	}
	if _, d := s.challenge(t, id, mintToken(t, "alice"), from("2001:db8:1:ffff::7")...); d != testPowBits+1 {
		t.Fatalf("a fresh /64 of the farm's /48 is asked %d bits, want %d", d, testPowBits+1)
	}
	if _, d := s.challenge(t, id, mintToken(t, "alice"), from("2001:db8:2:1::7")...); d != testPowBits {
		t.Fatalf("a /64 of another /48 is asked %d bits, want the base %d", d, testPowBits)
	}
}
